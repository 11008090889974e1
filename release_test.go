package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/demoserver"
	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/demoworld/teskdemo"
	"dagger/shipyard/pipelines/releasegate"
)

const ghToken = "ghp_release_plan_test_token_value"

// seedRelease makes a tesk-core repository in the simulator with a valid v0.11.0 release tag.
func seedRelease(t *testing.T, notes string) *githubsim.Server {
	t.Helper()
	sim := githubsim.New(t)
	sim.AddToken(ghToken, githubsim.Token{})
	teskdemo.Seed(sim, notes)
	return sim
}

func releaseModule(t *testing.T, sim *githubsim.Server) *Shipyard {
	t.Helper()
	// The token reaches the GitHub command as a secret file only.
	m, e := newModule(t, nil)
	answerGitHub(t, e, ghToken)
	m.GithubAPI = sim.URL + "/"
	m.GithubToken = m.engine().SetSecret("github-token", ghToken)
	return m
}

func TestReleasePlanThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sim := seedRelease(t, "Brings signed images.\n\n## Features\n\n- Sign both images (#101, #102)\n")
	m := releaseModule(t, sim)
	out, err := m.ReleasePlan(ctx, "v0.11.0", "json", "ci.yml", "")
	if err != nil {
		t.Fatal(err)
	}
	// The plan is under "plan" of the document {"ok": true, "plan": {...}}.
	var doc struct {
		OK   bool `json:"ok"`
		Plan struct {
			Version    string `json:"version"`
			Prerelease bool   `json:"prerelease"`
			Latest     bool   `json:"latest"`
			Images     []struct {
				Repository string   `json:"repository"`
				Tags       []string `json:"tags"`
			} `json:"images"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || !doc.OK {
		t.Fatalf("%v\n%s", err, out)
	}
	plan := doc.Plan
	if plan.Version != "0.11.0" || !plan.Prerelease || !plan.Latest || len(plan.Images) != 2 {
		t.Fatalf("plan %+v", plan)
	}
	for _, img := range plan.Images {
		if !strings.HasPrefix(img.Repository, "elixircloud/tesk-core-") || strings.Join(img.Tags, ",") != "0.11.0,latest" {
			t.Errorf("image %+v", img)
		}
	}
	text, err := m.ReleasePlan(ctx, "v0.11.0", "text", "ci.yml", "")
	if err != nil || !strings.Contains(text, "0.11.0") {
		t.Fatalf("text plan %q, %v", text, err)
	}
	if strings.Contains(out+text, ghToken) {
		t.Fatal("the token reached the output")
	}
}

// Rule 6 through the module: a CI run that failed only in the dev images' jobs after its
// gate "CI passed" lets the release through, and one whose CI job failed names that job;
// the run's jobs are read through the GitHub command.
func TestReleasePlanJudgesCIByItsGateJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sim := seedRelease(t, "Brings signed images.\n\n## Features\n\n- Sign both images (#101, #102)\n")
	repo := sim.Repo(teskdemo.Owner + "/" + teskdemo.Name)
	sha := repo.Tag("v0.11.0")
	rerun := func(lint, gate, publish string) {
		repo.AddWorkflowRun(githubsim.WorkflowRun{Workflow: "ci.yml", Event: "push", HeadBranch: "dev", HeadSHA: sha, Conclusion: "failure",
			Jobs: []githubsim.WorkflowJob{{Name: "Lint", Conclusion: lint}, {Name: releasegate.CIGateJob, Conclusion: gate}, {Name: "Publish image (filer)", Conclusion: publish}}})
	}
	m := releaseModule(t, sim)
	rerun("success", "success", "failure")
	if _, err := m.ReleasePlan(ctx, "v0.11.0", "text", "ci.yml", ""); err != nil {
		t.Fatalf("a failed dev publish after CI passed blocked the release: %v", err)
	}
	rerun("failure", "failure", "skipped")
	_, err := m.ReleasePlan(ctx, "v0.11.0", "text", "ci.yml", "")
	if err == nil || !strings.Contains(err.Error(), "rule 6 (ci-passed)") || !strings.Contains(err.Error(), "job Lint failed: https://github.com/elixir-cloud-aai/tesk-core/actions/runs/") {
		t.Fatalf("a failed CI job: %v", err)
	}
}

func TestReleasePlanReportsEveryViolation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sim := seedRelease(t, "## Features\n\n- no intro and no numbers\n")
	m := releaseModule(t, sim)
	_, err := m.ReleasePlan(ctx, "v0.11.0", "text", "ci.yml", "")
	if err == nil {
		t.Fatal("malformed notes passed")
	}
	msg := err.Error()
	for _, want := range []string{"docs/releases/0.11.0.md:1", "docs/releases/0.11.0.md:3"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, ghToken) {
		t.Fatal("the token reached the error")
	}
	// With --format json the function still fails, and its error is exactly the document.
	out, err := m.ReleasePlan(ctx, "v0.11.0", "json", "ci.yml", "")
	if err == nil || out != "" {
		t.Fatalf("malformed notes passed in JSON: %q", out)
	}
	doc := err.Error()
	var report struct {
		OK         *bool `json:"ok"`
		Violations []struct {
			Rule    int      `json:"rule"`
			File    string   `json:"file"`
			Line    int      `json:"line"`
			Message string   `json:"message"`
			Details []string `json:"details"`
			Fix     string   `json:"fix"`
			Summary string   `json:"summary"`
		} `json:"violations"`
	}
	if strings.Contains(doc, "\n") || json.Unmarshal([]byte(doc), &report) != nil || report.OK == nil || *report.OK {
		t.Fatalf("the error is not the one-line JSON document:\n%s", doc)
	}
	if len(report.Violations) != 1 {
		t.Fatalf("violations %+v", report.Violations)
	}
	v := report.Violations[0]
	if v.Rule != 5 || v.File != "docs/releases/0.11.0.md" || v.Line != 1 || v.Message == "" || v.Fix == "" ||
		!strings.HasPrefix(v.Summary, "rule 5 (release-notes)") || !strings.HasPrefix(strings.Join(v.Details, "\n"), "docs/releases/0.11.0.md:1") {
		t.Fatalf("violation %+v", v)
	}
	var gate *releasegate.GateError
	if !errors.As(err, &gate) {
		t.Fatal("the JSON error does not unwrap to the gate's error")
	}
	if strings.Contains(doc, ghToken) {
		t.Fatal("the token reached the JSON error")
	}
	if _, err := m.ReleasePlan(ctx, "v0.11.0", "yaml", "ci.yml", ""); err == nil {
		t.Fatal("unknown format accepted")
	}
}

// The README's quick start prints exactly what release-plan prints for the demo
// repository, read without a token through the demo server's handler (cmd/demo-server
// serves the same).
func TestReadmeQuickStartOutput(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, ok := readmeBlock(string(readme), "Release plan for ")
	if !ok {
		t.Fatal("README.md has no text block with the release plan")
	}
	srv := httptest.NewServer(demoserver.New(t).GitHubHandler())
	t.Cleanup(srv.Close)
	m, e := newModule(t, nil)
	answerGitHub(t, e, "")
	m.GithubAPI = srv.URL + "/"
	got, err := m.ReleasePlan(context.Background(), teskdemo.Tag, "text", "ci.yml", "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Errorf("README.md shows:\n%s\nrelease-plan prints:\n%s", want, got)
	}
}

// readmeBlock returns the first fenced text block of readme that starts with prefix.
func readmeBlock(readme, prefix string) (string, bool) {
	for _, block := range strings.Split(readme, "```text\n")[1:] {
		body, _, _ := strings.Cut(block, "```")
		if strings.HasPrefix(body, prefix) {
			return body, true
		}
	}
	return "", false
}

// The pull-request check of the next release reads the tree's CITATION.cff and the
// notes of the version it names; with a token, a version already released is left alone.
func TestNextReleaseCheckThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, _ := newModule(t, nil)
	out, err := m.NextReleaseCheck(ctx)
	if err != nil || !strings.Contains(out, "0.11.0 is ready") {
		t.Fatalf("the fixture's release files: %q, %v", out, err)
	}
	broken, _ := newModule(t, map[string]string{"docs/releases/0.11.0.md": "## Fixes\n\n- no intro (#1)\n",
		"CITATION.cff": "cff-version: 1.2.0\ntitle: tesk-core\nversion: 0.11.0\n"})
	_, err = broken.NextReleaseCheck(ctx)
	if err == nil || !strings.Contains(err.Error(), "docs/releases/0.11.0.md:1:") || !strings.Contains(err.Error(), "rule 4 (citation)") {
		t.Fatalf("broken release files: %v", err)
	}
	sim := seedRelease(t, teskdemo.Notes)
	sim.Repo(teskdemo.Owner + "/" + teskdemo.Name).AddRelease(githubsim.Release{TagName: "v0.11.0", Name: "v0.11.0"})
	released, e := newModule(t, map[string]string{"docs/releases/0.11.0.md": ""})
	answerGitHub(t, e, ghToken)
	released.GithubAPI = sim.URL + "/"
	released.GithubToken = released.engine().SetSecret("github-token", ghToken)
	if out, err := released.NextReleaseCheck(ctx); err != nil || !strings.Contains(out, "released already") {
		t.Errorf("a released version: %q, %v", out, err)
	}
}

// release-plan --commit rehearses for a commit: on the demo repository, whose tag is on
// that commit, the plan names it; a commit that is no full SHA is refused.
func TestReleasePlanRehearsalThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sim := seedRelease(t, teskdemo.Notes)
	m := releaseModule(t, sim)
	sha := sim.Repo(teskdemo.Owner + "/" + teskdemo.Name).Branch("main")
	text, err := m.ReleasePlan(ctx, "v0.11.0", "text", "ci.yml", sha)
	if err != nil || !strings.Contains(text, "commit:       "+sha) {
		t.Fatalf("rehearsal: %q, %v", text, err)
	}
	if _, err := m.ReleasePlan(ctx, "v0.11.0", "text", "ci.yml", "main"); err == nil || !strings.Contains(err.Error(), "full commit SHA") {
		t.Errorf("--commit main: %v", err)
	}
}
