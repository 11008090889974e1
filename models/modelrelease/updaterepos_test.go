package modelrelease

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/testkit/githubsim"
)

const updateToken = "ghp_ci_github_token_for_updates"

// modelRepos is a GitHub simulator with cloudcoil/models-<name> for each name, main at a
// commit holding an older generation.
func modelRepos(t *testing.T, names ...string) (*githubsim.Server, map[string]*githubsim.Repo) {
	t.Helper()
	sim := githubsim.New(t)
	sim.AddToken(updateToken, githubsim.Token{PushAccess: true})
	repos := map[string]*githubsim.Repo{}
	for _, n := range names {
		r := sim.AddRepo(DefaultModelOwner, "models-"+n)
		r.CommitOnBranch("main", "Initial generation", map[string]string{"README.md": "old\n", "stale.py": "x = 1\n"})
		repos[n] = r
	}
	return sim, repos
}

func updateClient(t *testing.T, sim *githubsim.Server, rt http.RoundTripper) *github.Client {
	t.Helper()
	opts := []github.Option{github.WithSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() })}
	if rt != nil {
		opts = append(opts, github.WithTransport(rt))
	}
	c, err := github.NewClient(sim.URL, updateToken, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestUpdateReposOneFailureLeavesTheOthersPushed(t *testing.T) {
	sim, repos := modelRepos(t, "keda", "istio", "velero")
	before := map[string]string{}
	for n, r := range repos {
		before[n] = r.Branch("main")
	}
	env, e := newEnv(t)
	renderAnything(e)
	e.OnExec(engine.ExecRule{ArgsContain: "cloudcoil-model-codegen", ExitCode: 1, Stderr: "error: schema 404",
		Match: func(x engine.Exec) bool { return strings.Contains(x.Chain, "models/velero") }})
	var log []string
	up, err := env.UpdateRepos(context.Background(), updateClient(t, sim, nil), generatorRepo(t, env, nil), UpdateOptions{
		Names: []string{"keda", "istio", "velero"}, SourceCommit: "0123456789abcdef",
		Log: func(f string, a ...any) { log = append(log, f) },
	})
	if err == nil || !strings.Contains(err.Error(), "update-repos: 1 of 3 failed") || !strings.Contains(err.Error(), "update-repos velero: generate") {
		t.Fatalf("err = %v", err)
	}
	if len(log) == 0 {
		t.Error("no step was logged")
	}
	if flow.FailedStep(up[2].Err) != "generate" || !strings.Contains(up[2].Err.Error(), "make gen-repo-velero") {
		t.Errorf("velero: %v", up[2].Err)
	}
	if got := repos["velero"].Branch("main"); got != before["velero"] {
		t.Errorf("velero's main moved to %s", got)
	}
	want := fixtures.ModelRepoFiles(t, nil)
	for i, n := range []string{"keda", "istio"} {
		head := repos[n].Branch("main")
		if up[i].Err != nil || up[i].Commit == "" || head != up[i].Commit {
			t.Fatalf("%s: %+v, main at %s", n, up[i], head)
		}
		// A regular commit on the old head, never a rewrite of it.
		if parents := repos[n].Parents(head); len(parents) != 1 || parents[0] != before[n] {
			t.Errorf("%s: parents %v, want the old head %s", n, parents, before[n])
		}
		files := repos[n].Files(head)
		if files["Makefile"] != want["Makefile"] || files[fixtures.ModelRepoPackageDir+"/v1.py"] == "" {
			t.Errorf("%s: the pushed tree is not the generated repository", n)
		}
		if _, ok := files["stale.py"]; ok {
			t.Errorf("%s: a file the generation no longer writes stayed", n)
		}
	}
	if !strings.Contains(up.Text(), "cloudcoil/models-keda: pushed") || !strings.Contains(up.Text(), "cloudcoil/models-velero: failed (generate)") {
		t.Errorf("text:\n%s", up.Text())
	}
	noSecrets(t, e)
}

func TestUpdateReposUnchangedTreePushesNothing(t *testing.T) {
	sim, repos := modelRepos(t, "keda")
	env, e := newEnv(t)
	renderAnything(e)
	first, err := env.UpdateRepos(context.Background(), updateClient(t, sim, nil), generatorRepo(t, env, nil), UpdateOptions{Names: []string{"keda"}})
	if err != nil || first[0].Commit == "" {
		t.Fatalf("first: %+v, %v", first, err)
	}
	sim.ResetLog()
	again, err := env.UpdateRepos(context.Background(), updateClient(t, sim, nil), generatorRepo(t, env, nil), UpdateOptions{Names: []string{"keda"}})
	if err != nil || !again[0].Unchanged || again[0].Commit != "" || repos["keda"].Branch("main") != first[0].Commit {
		t.Fatalf("again: %+v, %v", again, err)
	}
	for _, w := range sim.Writes() {
		if strings.HasSuffix(w.Path, "/git/commits") || strings.Contains(w.Path, "/git/refs") {
			t.Errorf("an unchanged tree wrote %s %s", w.Method, w.Path)
		}
	}
	if !strings.Contains(again.Text(), "unchanged") {
		t.Errorf("text: %s", again.Text())
	}
}

// updateHook runs before once the first request matching match goes out.
type updateHook struct {
	match  func(*http.Request) bool
	before func()
	done   bool
}

func (h *updateHook) RoundTrip(r *http.Request) (*http.Response, error) {
	if !h.done && h.match(r) {
		h.done = true
		h.before()
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestUpdateReposRefusesADivergedMain(t *testing.T) {
	sim, repos := modelRepos(t, "keda")
	var moved string
	// Someone pushes to main after the update read it, before its ref update.
	gh := updateClient(t, sim, &updateHook{
		match: func(r *http.Request) bool {
			return r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/git/refs/heads/main")
		},
		before: func() {
			moved = repos["keda"].CommitOnBranch("main", "a maintainer's fix", map[string]string{"FIX.md": "fix\n"})
		},
	})
	env, e := newEnv(t)
	renderAnything(e)
	up, err := env.UpdateRepos(context.Background(), gh, generatorRepo(t, env, nil), UpdateOptions{Names: []string{"keda"}})
	if err == nil || flow.FailedStep(up[0].Err) != "push" || !strings.Contains(err.Error(), "main of cloudcoil/models-keda diverged") {
		t.Fatalf("err = %v", err)
	}
	if repos["keda"].Branch("main") != moved {
		t.Errorf("main is at %s, not the maintainer's %s: their commit was overwritten", repos["keda"].Branch("main"), moved)
	}
}

func TestUpdateReposDryRunWritesNothing(t *testing.T) {
	sim, repos := modelRepos(t, "keda")
	head := repos["keda"].Branch("main")
	env, e := newEnv(t)
	renderAnything(e)
	up, err := env.UpdateRepos(context.Background(), updateClient(t, sim, nil), generatorRepo(t, env, nil), UpdateOptions{Names: []string{"keda"}, DryRun: true})
	if err != nil || up[0].Commit != "" || up[0].Head != head || len(sim.Writes()) != 0 {
		t.Fatalf("%+v, %v, writes %v", up, err, sim.Writes())
	}
}

func TestUpdateReposNamesAMissingRepository(t *testing.T) {
	sim, _ := modelRepos(t, "keda")
	env, e := newEnv(t)
	renderAnything(e)
	_, err := env.UpdateRepos(context.Background(), updateClient(t, sim, nil), generatorRepo(t, env, nil), UpdateOptions{Names: []string{"istio"}})
	if err == nil || !strings.Contains(err.Error(), "cloudcoil/models-istio has no branch main") || !strings.Contains(err.Error(), "next: create cloudcoil/models-istio") {
		t.Fatalf("err = %v", err)
	}
}
