package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/demoworld/pypisim"
	"dagger/shipyard/internal/testkit/fixtures"
)

const doctorToken = "ghp_doctor_module_test_token"

const doctorCI = `on: [push]
env:
  SHIPYARD: github.com/elixir-cloud-aai/shipyard@4a07d756010dcad18103e57c9a44ebe03e5b28a3
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: dagger call -m "$SHIPYARD" --source=. lint
`

const doctorDependabot = `version: 2
updates:
  - {package-ecosystem: uv, directory: /, target-branch: dev, schedule: {interval: monthly}}
  - {package-ecosystem: github-actions, directory: /, target-branch: dev, schedule: {interval: monthly}}
  - {package-ecosystem: docker, directory: /containers, target-branch: dev, schedule: {interval: monthly}}
`

// seedDoctorTesk seeds a tesk-core repository whose settings pass every check.
func seedDoctorTesk(sim *githubsim.Server) *githubsim.Repo {
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	repo.CommitOnBranch("main", "init", map[string]string{
		".github/dependabot.yml": doctorDependabot, ".github/CODEOWNERS": "* @elixir-cloud-aai/tesk\n", ".github/workflows/ci.yml": doctorCI,
	})
	repo.SetBranch("dev", repo.Branch("main"))
	repo.AddRuleset(githubsim.Ruleset{Name: "release tags", Target: "tag", Include: []string{"refs/tags/v*"},
		Rules: []string{"creation"}, Bypass: []githubsim.BypassActor{{ActorType: "RepositoryRole", ActorID: 5}}})
	repo.AddRuleset(githubsim.Ruleset{Name: "immutable", Target: "tag", Include: []string{"refs/tags/v*"}, Rules: []string{"update", "deletion"}})
	repo.AddRuleset(githubsim.Ruleset{Name: "CI", Target: "branch", Include: []string{"refs/heads/dev", "~DEFAULT_BRANCH"}, StatusChecks: []string{"CI passed"}})
	dockerhub := []string{"DOCKERHUB_LOGIN", "DOCKERHUB_TOKEN"}
	repo.AddEnvironment(githubsim.Environment{Name: "release", Reviewers: []string{"maintainer"}, Policy: "custom",
		Policies: []githubsim.DeploymentPolicy{{Name: "v*", Type: "tag"}}, Secrets: dockerhub})
	repo.AddEnvironment(githubsim.Environment{Name: "dev-images", Policy: "custom",
		Policies: []githubsim.DeploymentPolicy{{Name: "dev", Type: "branch"}}, Secrets: dockerhub})
	return repo
}

func doctorModule(t *testing.T, sim *githubsim.Server, repo string) *Shipyard {
	t.Helper()
	// The token reaches the GitHub command as a secret file only; doctor runs no other
	// container, and the strict double fails on any other exec.
	m, e := newModule(t, nil)
	answerGitHub(t, e, doctorToken)
	m.Repo = repo
	m.GithubAPI = sim.URL + "/"
	m.GithubToken = m.engine().SetSecret("github-token", doctorToken)
	return m
}

func TestDoctorThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sim := githubsim.New(t)
	sim.AddToken(doctorToken, githubsim.Token{})
	seedDoctorTesk(sim)
	m := doctorModule(t, sim, "elixir-cloud-aai/tesk-core")
	out, err := m.Doctor(ctx, "tesk-core", "json", true, "")
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Findings []struct{ Check, Status string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(report.Findings) != 13 {
		t.Fatalf("%d findings:\n%s", len(report.Findings), out)
	}
	for _, f := range report.Findings {
		if f.Status != "pass" {
			t.Errorf("%s: %s", f.Check, f.Status)
		}
	}
	text, err := m.Doctor(ctx, "tesk-core", "text", false, "")
	if err != nil || !strings.Contains(text, "13 passed, 0 failed") {
		t.Errorf("text %q, %v", text, err)
	}
	if strings.Contains(out+text, doctorToken) {
		t.Fatal("the token reached the output")
	}
	if _, err := m.Doctor(ctx, "tesk-core", "yaml", false, ""); err == nil {
		t.Error("unknown format accepted")
	}
	if _, err := m.Doctor(ctx, "cloudcoil", "text", false, ""); err == nil {
		t.Error("unknown system accepted")
	}
}

// "cannot check" warns (exit zero) unless --strict; a failed check is an error whose
// text is the report.
func TestDoctorExitDecision(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sim := githubsim.New(t)
	sim.AddToken(doctorToken, githubsim.Token{Lacks: []string{"administration"}})
	seedDoctorTesk(sim)
	m := doctorModule(t, sim, "elixir-cloud-aai/tesk-core")
	out, err := m.Doctor(ctx, "tesk-core", "text", false, "")
	if err != nil || !strings.Contains(out, "[cannot-check] tag-create") {
		t.Fatalf("without --strict: %q, %v", out, err)
	}
	if _, err := m.Doctor(ctx, "tesk-core", "text", true, ""); err == nil || !strings.Contains(err.Error(), "needs: a token that may edit rulesets") {
		t.Fatalf("with --strict: %v", err)
	}

	model := githubsim.New(t)
	model.AddToken(doctorToken, githubsim.Token{})
	r := model.AddRepo("cloudcoil", "models-keda")
	r.CommitOnBranch("main", "init", map[string]string{"README.md": "x"})
	r.SetVariable("AUTO_PUBLISH_MODELS", "yes")
	m = doctorModule(t, model, "cloudcoil/models-keda")
	_, err = m.Doctor(ctx, "cloudcoil-model", "json", false, pypisim.New(t).URL())
	if err == nil {
		t.Fatal("a misconfigured model repository passed")
	}
	var report struct {
		System   string `json:"system"`
		Findings []struct{ Check, Status, Fix string }
	}
	if jerr := json.Unmarshal([]byte(err.Error()), &report); jerr != nil || report.System != "cloudcoil-model" {
		t.Fatalf("the error is not the JSON report: %v\n%s", jerr, err)
	}
	want := map[string]string{"auto-publish-variable": "fail", "ci-github-token": "fail", "pypi-publish-workflow": "fail", "trusted-publisher": "manual"}
	for _, f := range report.Findings {
		if want[f.Check] != f.Status || f.Fix == "" {
			t.Errorf("%s: %s (fix %q)", f.Check, f.Status, f.Fix)
		}
	}
	if strings.Contains(err.Error(), doctorToken) {
		t.Fatal("the token reached the error")
	}
}

// The trusted publisher through the module: the identity PyPI recorded for the newest
// upload ran in another environment than the upload job of pypi_publish.yml, so PyPI would
// refuse the next upload; doctor fails naming both and the settings page.
func TestDoctorReadsTheTrustedPublisherFromPyPI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	model, pypi := fixtures.PublisherMismatch(t, ".", doctorToken)
	m := doctorModule(t, model, "cloudcoil/models-keda")
	_, err := m.Doctor(ctx, "cloudcoil-model", "text", false, pypi.URL())
	if err == nil {
		t.Fatal("a publisher in another environment passed")
	}
	for _, want := range []string{"[fail] trusted-publisher", "environment release", "runs in environment pypi", "https://pypi.org/manage/project/cloudcoil.models.keda/settings/publishing/"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the report lacks %q:\n%s", want, err)
		}
	}
}
