package modelrelease

import (
	"dagger/shipyard/internal/githubclient"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/modeltest"

	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/demoworld/pypisim"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
)

const (
	worldToken = "ghs_model_release_world_token"
	owner      = "cloudcoil"
	repoName   = "models-cert-manager"
	project    = "cloudcoil.models.cert_manager"
)

// world is a model repository on the GitHub simulator, its project on the PyPI
// simulator, and the repository's main checkout (the fixture, whose own version is a
// placeholder the flow replaces) in a folder.
type world struct {
	t       *testing.T
	sim     *githubsim.Server
	repo    *githubsim.Repo
	pypi    *pypisim.Server
	main    string            // main's head
	changes map[string]string // of the checkout, relative to the fixture
}

// placeholderVersion is main's version: releases set their own, so rules keyed on a
// release version never match main's file.
const placeholderVersion = "0.0.0.0"

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, sim: githubsim.New(t), pypi: pypisim.New(t)}
	w.sim.AddToken(worldToken, githubsim.Token{PushAccess: true})
	w.repo = w.sim.AddRepo(owner, repoName)
	w.setCheckout(nil)
	return w
}

// setCheckout commits the fixture with changes to main and makes it the run's source.
func (w *world) setCheckout(changes map[string]string) {
	w.t.Helper()
	all := map[string]string{}
	for p, c := range changes {
		all[p] = c
	}
	pyproject, err := modelenv.SetVersion(fixtureFile(w.t, modelenv.PyprojectPath), placeholderVersion)
	if err != nil {
		w.t.Fatal(err)
	}
	if c, ok := changes[modelenv.PyprojectPath]; ok {
		if pyproject, err = modelenv.SetVersion([]byte(c), placeholderVersion); err != nil {
			w.t.Fatal(err)
		}
	}
	all[modelenv.PyprojectPath] = string(pyproject)
	w.changes = all
	w.main = w.repo.CommitOnBranch("main", "Update generated models", fixtures.ModelRepoFiles(w.t, all))
}

// client is a GitHub client of the simulator; rt, when given, sees every request first.
func (w *world) client(rt http.RoundTripper) *githubclient.Client {
	w.t.Helper()
	opts := []githubclient.Option{githubclient.WithSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() })}
	if rt != nil {
		opts = append(opts, githubclient.WithTransport(rt))
	}
	c, err := githubclient.NewClient(w.sim.URL, worldToken, opts...)
	if err != nil {
		w.t.Fatal(err)
	}
	return c
}

// serve programs an engine so that building version from the current checkout returns
// real archives of that checkout with the version set (edit may corrupt them).
func (w *world) serve(e *engine.Engine, version string, edit func(kind string, files map[string]string)) {
	w.t.Helper()
	files := fixtures.ModelRepoFiles(w.t, w.changes)
	upstream, _, _ := modelenv.ParseVersion(version)
	// The release builds its line's pyproject.toml: SelectUpstream's, with the version set.
	var lines modelenv.LineConfig
	var err error
	for _, p := range modelenv.LineWorkflows() { // the order ReadLineConfig reads them in
		if files[p] != "" {
			lines, err = modelenv.ParseLineConfig(p, []byte(files[p]))
			break
		}
	}
	if err != nil {
		w.t.Fatal(err)
	}
	line, err := modelenv.SelectUpstream([]byte(files[modelenv.PyprojectPath]), lines, upstream)
	if err != nil {
		w.t.Fatal(err)
	}
	pyproject, err := modelenv.SetVersion(line, version)
	if err != nil {
		w.t.Fatal(err)
	}
	files[modelenv.PyprojectPath] = string(pyproject)
	delete(files, RecordPath)
	// The chain of the build holds the versioned pyproject.toml, quoted.
	modeltest.ServeDistributions(e, fmt.Sprintf(`version = \"%s\"`, version), fixtures.BuildDistributions(w.t, files, edit))
}

// run releases upstream from the checkout with a fresh engine double that serves the
// given versions' builds.
func (w *world) run(o ReleaseOptions, gh *githubclient.Client, versions ...string) (ReleaseResult, *engine.Engine, error) {
	w.t.Helper()
	env, e := modeltest.NewEnv(w.t)
	for _, v := range versions {
		w.serve(e, v, nil)
	}
	return w.runIn(env, e, o, gh)
}

func (w *world) runIn(env modelenv.Env, e *engine.Engine, o ReleaseOptions, gh *githubclient.Client) (ReleaseResult, *engine.Engine, error) {
	w.t.Helper()
	if gh == nil {
		gh = w.client(nil)
	}
	o.Repo, o.Flow = owner+"/"+repoName, "model-release"
	if o.Upstream == "" {
		o.Upstream = "1.17.1"
	}
	o.PyPIURL, env.PyPI = w.pypi.URL(), w.pypi.Client()
	source := env.Client.Host().Directory(fixtures.ModelRepo(w.t, w.changes))
	res, err := Release(context.Background(), env, gh, source, o)
	// Every failure names a step the model release declares, and every step it reports as
	// run is one of them.
	declared := flow.Names(slices.Concat(prepareSteps(), releaseSteps()))
	if err != nil {
		requireNamed(w.t, err, declared)
	}
	for _, step := range res.Ran {
		if !slices.Contains(declared, step) {
			w.t.Errorf("ran step %q, which model-release does not declare", step)
		}
	}
	return res, e, err
}

// drafts returns the simulator's releases of a tag.
func (w *world) releasesOf(tag string) []githubsim.Release {
	var out []githubsim.Release
	for _, r := range w.repo.Releases() {
		if r.TagName == tag {
			out = append(out, r)
		}
	}
	return out
}

// recordOf reads the release record a commit carries.
func (w *world) recordOf(sha string) Record {
	w.t.Helper()
	files := w.repo.Files(sha)
	rec, err := ParseRecord([]byte(files[RecordPath]))
	if err != nil {
		w.t.Fatalf("commit %.12s: %v", sha, err)
	}
	return rec
}

func (w *world) noWrites() {
	w.t.Helper()
	if writes := changes(w.sim); len(writes) > 0 {
		w.t.Errorf("GitHub writes: %+v", writes)
	}
	for _, r := range w.pypi.Requests() {
		if r.Method != http.MethodGet {
			w.t.Errorf("PyPI request %+v", r)
		}
	}
}

// changes are the writes a run sent GitHub but those that change nothing: asking for
// release notes, which a run that writes does first to learn whether its token may
// (github.ProbeContentsWrite), and GitHub saves nothing of.
func changes(sim *githubsim.Server) []githubsim.Request {
	var out []githubsim.Request
	for _, r := range sim.Writes() {
		if !strings.HasSuffix(r.Path, "/releases/generate-notes") {
			out = append(out, r)
		}
	}
	return out
}

func writePaths(w *world) []string {
	var out []string
	for _, r := range changes(w.sim) {
		out = append(out, r.Method+" "+strings.TrimPrefix(r.Path, "/repos/"+owner+"/"+repoName))
	}
	return out
}

// hook is a transport that calls before, once, ahead of the first request match accepts:
// a test's way to let the world change at an exact point of a run.
type hook struct {
	match  func(*http.Request) bool
	before func()
	once   sync.Once
}

func (h *hook) RoundTrip(r *http.Request) (*http.Response, error) {
	if h.match(r) {
		h.once.Do(h.before)
	}
	return http.DefaultTransport.RoundTrip(r)
}
