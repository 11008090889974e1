package releasegate

import (
	"dagger/shipyard/internal/githubclient"

	"context"
	"fmt"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/githubsim"
)

const (
	testRepo  = "elixir-cloud-aai/tesk-core"
	testToken = "ghp_release0plan0SECRET0token"
)

func validNotes(v string) string {
	return "Release " + v + " publishes the images under their new tags and fixes FTP uploads of the filer.\n\n" +
		"## Features\n\n" +
		"- Publish images as X.Y.Z, see https://github.com/elixir-cloud-aai/tesk-core/blob/main/docs/development.md (#12, #34)\n\n" +
		"## Fixes\n\n" +
		"- Retry FTP uploads of the filer\n  when the server drops the connection (#40)\n"
}

func validCitation(v string) string {
	return "cff-version: 1.2.0\n" +
		"message: If you use this software, please cite it as below.\n" +
		"title: tesk-core\n" +
		"version: " + v + "\n" +
		"date-released: 2025-05-01\n"
}

// teskCore is a seeded tesk-core-like repository: a dev history, main moved forward to a
// commit of dev, a signed tag on it, CI passed for its push to dev, and earlier releases.
type teskCore struct {
	sim   *githubsim.Server
	repo  *githubsim.Repo
	tag   string
	sha   string // the tagged commit
	runID int64
	// mainBefore is a commit of dev before the tagged one.
	mainBefore string
}

// seedOpts describe the release under test; zero fields give a clean release.
type seedOpts struct {
	tag       string   // default v0.11.0
	published []string // earlier published releases (default v0.10.6)
	files     map[string]string
	noFiles   bool // leave CITATION.cff and the notes out of the tagged commit
	noTag     bool // the release is prepared, its tag not pushed yet
}

func seedTeskCore(t *testing.T, o seedOpts) *teskCore {
	t.Helper()
	if o.tag == "" {
		o.tag = "v0.11.0"
	}
	if o.published == nil {
		o.published = []string{"v0.10.6"}
	}
	sim := githubsim.New(t)
	sim.AddToken(testToken, githubsim.Token{})
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	repo.CommitOnBranch("dev", "feat: first", map[string]string{"README.md": "# tesk-core\n", "CITATION.cff": validCitation("0.10.6")})
	before := repo.CommitOnBranch("dev", "fix: filer retries FTP uploads", map[string]string{"src/tesk_core/filer.py": "print()\n"})
	files := map[string]string{}
	if !o.noFiles {
		v := versionOf(o.tag)
		files["CITATION.cff"] = validCitation(v)
		files["docs/releases/"+v+".md"] = validNotes(v)
	}
	for p, c := range o.files {
		files[p] = c
	}
	sha := repo.CommitOnBranch("dev", "chore: release "+o.tag, files)
	repo.SetBranch("main", sha)
	if !o.noTag {
		repo.AnnotatedTag(o.tag, sha, githubsim.ValidSignature())
	}
	run := repo.AddWorkflowRun(githubsim.WorkflowRun{
		Workflow: "ci.yml", Event: "push", HeadBranch: "dev", HeadSHA: sha, Status: "completed", Conclusion: "success",
	})
	// Noise the lookups must not pick up: a PR run of the same commit, another workflow.
	repo.AddWorkflowRun(githubsim.WorkflowRun{Workflow: "ci.yml", Event: "pull_request", HeadBranch: "dev", HeadSHA: sha, Conclusion: "failure"})
	repo.AddWorkflowRun(githubsim.WorkflowRun{Workflow: "scan.yml", Event: "schedule", HeadBranch: "dev", HeadSHA: sha, Conclusion: "failure"})
	for _, p := range o.published {
		repo.AddRelease(githubsim.Release{TagName: p, Name: p, Prerelease: true})
	}
	return &teskCore{sim: sim, repo: repo, tag: o.tag, sha: sha, runID: run, mainBefore: before}
}

// addReleases adds n older published releases (v0.9.0, v0.9.1, …), to make the listing
// paginate.
func (tc *teskCore) addReleases(n int) {
	for i := range n {
		tc.repo.AddRelease(githubsim.Release{
			TagName: fmt.Sprintf("v0.9.%d", i), Prerelease: true,
			CreatedAt: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour),
		})
	}
}

// client returns a client of the simulator whose retries do not really sleep.
func (tc *teskCore) client(t *testing.T, opts ...githubclient.Option) *githubclient.Client {
	t.Helper()
	noSleep := githubclient.WithSleep(func(ctx context.Context, d time.Duration) error { return ctx.Err() })
	c, err := githubclient.NewClient(tc.sim.URL, testToken, append([]githubclient.Option{noSleep}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
