package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/demoworld/pypisim"
	"dagger/shipyard/internal/githubcmd"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/githubexec"
	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/versions"
	"dagger/shipyard/models/versions/versionstest"
)

// modelVersionsModule is the module on a fresh engine double, connected through its own
// fields (so tests using it run in parallel), with the constructor pointed at the GitHub
// simulator with token as --github-token (none when empty). The engine is strict: it runs
// the real GitHub command, which alone reads the token (a secret file), and keeps the
// ETag cache volume's folder across the test's calls; the module never reads the token.
func modelVersionsModule(t *testing.T, w *versionstest.World, token string) (*Shipyard, *engine.Engine) {
	t.Helper()
	m, e, _ := modelVersionsModuleRuns(t, w, token)
	return m, e
}

// modelVersionsModuleRuns is modelVersionsModule with the runs of the GitHub command, whose
// cache volumes' folders a test can reach.
func modelVersionsModuleRuns(t *testing.T, w *versionstest.World, token string) (*Shipyard, *engine.Engine, *githubexec.Runs) {
	t.Helper()
	// The module reads the token into memory only to seal the release level's cache
	// volume names (trust.Sealing); the GitHub command gets it as a secret file.
	e := engine.New(t, engine.StrictExecs(), engine.AllowSecretPlaintext())
	runs := answerGitHub(t, e, token)
	c := e.Client(context.Background())
	var secret *sdk.Secret
	if token != "" {
		secret = c.SetSecret("github-token", token)
	}
	m := mustNew(t)(New(nil, versionstest.Repository, secret, w.GitHub.URL, "docker.io", "elixircloud", "", nil, nil, false))
	m.clients = clients{sdk: c, dag: c}
	return m, e, runs
}

func TestModelVersionsThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := versionstest.New(t)
	m, e := modelVersionsModule(t, w, versionstest.Token)
	var outputs []string

	// --check: the plan as JSON, not a single write.
	out, err := m.ModelVersions(ctx, true, "json", "main", w.PyPI.URL())
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, out)
	var checked versions.Report
	if err := json.Unmarshal([]byte(out), &checked); err != nil {
		t.Fatalf("--format json: %v\n%s", err, out)
	}
	if !checked.Check || checked.Action != versions.ActionChecked || !checked.Plan.HasEdits() || len(w.GitHub.Writes()) != 0 {
		t.Fatalf("check: %+v; writes %v", checked, w.GitHub.Writes())
	}

	// A run opens the pull request.
	out, err = m.ModelVersions(ctx, false, "text", "main", w.PyPI.URL())
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, out)
	pulls := w.Repo.PullRequests()
	if len(pulls) != 1 || !strings.Contains(out, "Opened pull request #1: https://github.com/cloudcoil/cloudcoil/pull/1") {
		t.Fatalf("pull requests %+v; output:\n%s", pulls, out)
	}

	// The next call finds the ETag cache the GitHub command's runs left in the volume, and
	// is answered by 304s only.
	before := len(w.GitHub.Requests())
	out, err = m.ModelVersions(ctx, false, "text", "main", w.PyPI.URL())
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, out)
	third := w.GitHub.Requests()[before:]
	if len(third) == 0 || !strings.Contains(out, "is current; nothing was written") {
		t.Fatalf("unchanged call:\n%s", out)
	}
	for _, r := range third {
		if !r.NotModified {
			t.Errorf("unchanged call: %s %s answered %d, want 304", r.Method, r.Path, r.Status)
		}
	}
	if !strings.Contains(e.Graph().String(), githubcmd.CacheVolume) {
		t.Errorf("the cache volume %s was never mounted", githubcmd.CacheVolume)
	}

	// Refusals name the fix.
	for _, tt := range []struct {
		name  string
		call  func() (string, error)
		want  string
		state string
	}{
		{"bad format", func() (string, error) { return m.ModelVersions(ctx, true, "yaml", "main", w.PyPI.URL()) }, `--format "yaml": want text or json`, ""},
		{"missing base", func() (string, error) { return m.ModelVersions(ctx, true, "text", "trunk", w.PyPI.URL()) }, "--base trunk: no such branch", ""},
	} {
		out, err := tt.call()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %q, %v; want %q", tt.name, out, err, tt.want)
		}
		if err != nil {
			outputs = append(outputs, err.Error())
		}
	}

	// The token is in nothing the function returned, nor in anything the engine recorded.
	outputs = append(outputs, e.Graph().String())
	for _, s := range outputs {
		if strings.Contains(s, versionstest.Token) {
			t.Fatalf("the token leaked:\n%s", s)
		}
	}
}

// TestModelVersionsReportsACacheItCannotUse: a cache volume holding what is no ETag cache
// (whoever can write the volume could leave it) costs full requests, and the report says
// so, once, however many of the command's runs met it.
func TestModelVersionsReportsACacheItCannotUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := versionstest.New(t)
	m, _, runs := modelVersionsModuleRuns(t, w, versionstest.Token)
	out, err := m.ModelVersions(ctx, true, "text", "main", w.PyPI.URL())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "ETag cache not") || strings.Contains(out, "ETag cache: ") {
		t.Fatalf("a cold run noted the cache:\n%s", out)
	}
	if dirs := runs.CacheDirs(); len(dirs) != 1 {
		t.Fatalf("cache volumes %v, want one", dirs)
	}
	runs.SpoilCaches([]byte("no cache"))
	before := len(w.GitHub.Requests())
	out, err = m.ModelVersions(ctx, true, "text", "main", w.PyPI.URL())
	if err != nil {
		t.Fatal(err)
	}
	const note = "ETag cache not used, starting cold"
	if strings.Count(out, note) != 1 {
		t.Errorf("the report says %q %d times, want once:\n%s", note, strings.Count(out, note), out)
	}
	for _, r := range w.GitHub.Requests()[before:] {
		if r.NotModified {
			t.Errorf("%s %s was answered 304 from a spoiled cache", r.Method, r.Path)
		}
	}
}

func TestModelVersionsNeedsAWorkflowTriggeringToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := versionstest.New(t)
	m, _ := modelVersionsModule(t, w, "")
	_, err := m.ModelVersions(ctx, false, "text", "main", w.PyPI.URL())
	if err == nil || !strings.Contains(err.Error(), "CI_GITHUB_TOKEN") || !strings.Contains(err.Error(), "not the default GITHUB_TOKEN") {
		t.Fatalf("err = %v, want the token rule", err)
	}
	if n := len(w.GitHub.Requests()); n != 0 {
		t.Errorf("sent %d GitHub requests without a token", n)
	}
	// A wrong token fails at GitHub without echoing it.
	m, _ = modelVersionsModule(t, w, versionstest.Token+"-wrong")
	_, err = m.ModelVersions(ctx, false, "text", "main", w.PyPI.URL())
	if err == nil || strings.Contains(err.Error(), versionstest.Token) {
		t.Fatalf("err = %v, want a failure that does not show the token", err)
	}
	if writes := githubsimWrites(w.GitHub); len(writes) != 0 {
		t.Errorf("writes with a rejected token: %v", writes)
	}
}

func githubsimWrites(s *githubsim.Server) []string { return versionstest.Writes(s.Requests()) }

// TestProposeUpstreamsOnTheRealTree runs propose-upstreams through the module on the real
// Cloudcoil tree, which has no models/upstreams.json: the file it prints is the one the
// adoption guide commits, and model-versions reads it.
func TestProposeUpstreamsOnTheRealTree(t *testing.T) {
	t.Parallel()
	tree := filepath.Join(corpus.Dir(t, "cloudcoil"), "tree")
	e := engine.New(t, engine.StrictExecs())
	c := e.Client(context.Background())
	m := mustNew(t)(New(c.Host().Directory(tree), versionstest.Repository, nil, "", "docker.io", "elixircloud", "", nil, nil, false))
	m.clients = clients{sdk: c, dag: c}
	ctx := context.Background()
	// Cloudcoil core's real releases (the corpus' tags.txt) on the PyPI simulator.
	pypi := pypisim.New(t)
	tags, err := os.ReadFile(filepath.Join(corpus.Dir(t, "cloudcoil"), "releases", "tags.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(tags)), "\n") {
		pypi.AddRelease("cloudcoil", strings.Fields(line)[0])
	}

	file, err := m.ProposeUpstreams(ctx, "file", pypi.URL())
	if err != nil {
		t.Fatal(err)
	}
	f, err := upstreams.Parse([]byte(file))
	if err != nil || len(f.Problems) != 0 || len(f.Integrations) != 12 {
		t.Fatalf("the proposed file: %v, problems %v, %d integrations", err, f.Problems, len(f.Integrations))
	}
	// The template says >=0.4.0, but the hook locks 0.5.8 and VERSIONING.md recommends
	// ~=0.5.0: the current minor is 0.5 (it was 0.4, from the lower bound alone).
	if f.Cloudcoil.Minor != "0.5" || f.Cloudcoil.Version != "0.5.8" {
		t.Errorf("cloudcoil %+v, want minor 0.5 at 0.5.8", f.Cloudcoil)
	}
	text, err := m.ProposeUpstreams(ctx, "text", pypi.URL())
	if err != nil || !strings.HasSuffix(text, file) || !strings.Contains(text, "- integrations.kubernetes.policy: models/kubernetes/cookiecutter.yaml keeps 4 lines") ||
		!strings.Contains(text, "Cloudcoil migration (part of the adoption):") || !strings.Contains(text, "recommends cloudcoil~=0.5.0: agrees") {
		t.Errorf("text: %v\n%s", err, text)
	}
	if _, err := m.ProposeUpstreams(ctx, "text", pypisim.New(t).URL()+"/nothing"); err == nil || !strings.Contains(err.Error(), "--pypi-url") {
		t.Errorf("PyPI without Cloudcoil: err = %v", err)
	}
	if _, err := m.ProposeUpstreams(ctx, "yaml", pypi.URL()); err == nil || !strings.Contains(err.Error(), `--format "yaml"`) {
		t.Errorf("bad format: err = %v", err)
	}
	if len(e.Graph().Execs()) != 0 {
		t.Errorf("reading files ran %d commands", len(e.Graph().Execs()))
	}

	empty := mustNew(t)(New(c.Host().Directory(t.TempDir()), versionstest.Repository, nil, "", "docker.io", "elixircloud", "", nil, nil, false))
	empty.clients = clients{sdk: c, dag: c}
	if _, err := empty.ProposeUpstreams(ctx, "text", pypi.URL()); err == nil || !strings.Contains(err.Error(), "models/") {
		t.Errorf("a checkout without models/: err = %v", err)
	}
}
