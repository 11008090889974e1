package modelrelease

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/githubclient"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/modeltest"
	"dagger/shipyard/models/updaterepos"
)

const updateToken = "ghp_ci_github_token_for_updates"

// sourceRepo is Cloudcoil's repository in the simulator.
const sourceRepo = "cloudcoil/cloudcoil"

// TestReleasePushKeepsModes: the release commit is written on its parent's tree, so an
// executable or symlink that update-repos put on main stays one on the release branch,
// although the tree model-release reads carries no modes.
func TestReleasePushKeepsModes(t *testing.T) {
	ctx := context.Background()
	sim, repos := modelRepos(t, "keda")
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	files := fixtures.ModelRepoFiles(t, map[string]string{"scripts/regenerate.sh": "#!/bin/sh\n", "docs/README.md": "../README.md"})
	modeltest.ServeGenerated(t, e, "", files, map[string]string{"scripts/regenerate.sh": fixtures.ArchiveExecutable, "docs/README.md": fixtures.ArchiveSymlink})
	up, err := updaterepos.Update(ctx, env, updateClient(t, sim, nil), modeltest.GeneratorRepo(t, env, nil), fromHead(repos, "keda"))
	if err != nil {
		t.Fatal(err)
	}
	tree := modelenv.Tree{}
	for p, c := range files {
		tree[p] = []byte(c)
	}
	tree["README.md"] = []byte("# keda 1.0\n")
	r := remote{gh: updateClient(t, sim, nil), owner: "cloudcoil", repo: "models-keda", main: "main"}
	plan := Allocation{Version: "2.16.0.0", Upstream: "v2.16.0", Branch: "release-2.16", Push: true, Parent: up[0].Commit, CreateBranch: true,
		Record: Record{Fingerprint: "sha256:" + strings.Repeat("0", 64)}}
	commit, err := r.push(ctx, plan, tree, up[0].Commit)
	if err != nil {
		t.Fatal(err)
	}
	modes := repos["keda"].Modes(commit)
	if modes["scripts/regenerate.sh"] != github.ModeExecutable || modes["docs/README.md"] != github.ModeSymlink {
		t.Errorf("modes on the release branch: %v", modes)
	}
	if got := repos["keda"].Files("release-2.16"); got["README.md"] != "# keda 1.0\n" || got[RecordPath] == "" {
		t.Errorf("release branch files: README %q, record %q", got["README.md"], got[RecordPath])
	}
}

// modelRepos is a GitHub simulator with cloudcoil/models-<name> for each name, main at a
// commit holding an older generation, and cloudcoil/cloudcoil with a main branch.
func modelRepos(t *testing.T, names ...string) (*githubsim.Server, map[string]*githubsim.Repo) {
	t.Helper()
	sim := githubsim.New(t)
	sim.AddToken(updateToken, githubsim.Token{PushAccess: true})
	repos := map[string]*githubsim.Repo{}
	src := sim.AddRepo("cloudcoil", "cloudcoil")
	src.CommitOnBranch("main", "Initial commit", map[string]string{"README.md": "Cloudcoil\n"})
	repos[sourceRepo] = src
	for _, n := range names {
		r := sim.AddRepo(updaterepos.DefaultModelOwner, "models-"+n)
		r.CommitOnBranch("main", "Initial generation", map[string]string{"README.md": "old\n", "stale.py": "x = 1\n"})
		repos[n] = r
	}
	return sim, repos
}

// fromHead are the options of an update from Cloudcoil main's head.
func fromHead(repos map[string]*githubsim.Repo, names ...string) updaterepos.UpdateOptions {
	return updaterepos.UpdateOptions{Flow: "update-repos", Names: names, SourceRepo: sourceRepo, SourceCommit: repos[sourceRepo].Branch("main")}
}

func updateClient(t *testing.T, sim *githubsim.Server, rt http.RoundTripper) *githubclient.Client {
	t.Helper()
	opts := []githubclient.Option{githubclient.WithSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() })}
	if rt != nil {
		opts = append(opts, githubclient.WithTransport(rt))
	}
	c, err := githubclient.NewClient(sim.URL, updateToken, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
