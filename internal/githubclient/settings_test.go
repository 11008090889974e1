package githubclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/github"
)

func TestRulesetsReadInFull(t *testing.T) {
	ctx := context.Background()
	f := setup(t, false)
	id := f.repo.AddRuleset(githubsim.Ruleset{
		Name: "release tags", Target: "tag", Include: []string{"refs/tags/v*"},
		Rules:  []string{"creation", "update", "deletion"},
		Bypass: []githubsim.BypassActor{{ActorType: "RepositoryRole", ActorID: 5}},
	})
	f.repo.AddRuleset(githubsim.Ruleset{Name: "dev", Target: "branch", Include: []string{"refs/heads/dev"}, StatusChecks: []string{"CI passed"}})
	f.repo.AddRuleset(githubsim.Ruleset{Name: "org", Target: "tag", SourceType: "Organization", Include: []string{"~ALL"}, Enforcement: "evaluate", Rules: []string{"deletion"}})

	got, err := f.c.Rulesets(ctx, "octo", "demo", "tag")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("tag rulesets: %+v", got)
	}
	r := got[0]
	if r.ID != id || r.Name != "release tags" || r.Target != "tag" || r.SourceType != "Repository" || r.Enforcement != "active" ||
		!slices.Equal(r.Include, []string{"refs/tags/v*"}) || len(r.Exclude) != 0 ||
		!slices.Equal(r.Rules, []string{"creation", "update", "deletion"}) || !r.BypassKnown ||
		!slices.Equal(r.Bypass, []github.BypassActor{{Type: "RepositoryRole", ID: 5, Mode: "always"}}) {
		t.Errorf("ruleset %+v", r)
	}
	if got[1].SourceType != "Organization" || got[1].Enforcement != "evaluate" || !got[1].BypassKnown || len(got[1].Bypass) != 0 {
		t.Errorf("organisation ruleset %+v", got[1])
	}
	checks, err := f.c.BranchStatusChecks(ctx, "octo", "demo", "dev")
	if err != nil || !slices.Equal(checks, []string{"CI passed"}) {
		t.Errorf("dev's checks %v, %v", checks, err)
	}
	if checks, err := f.c.BranchStatusChecks(ctx, "octo", "demo", "main"); err != nil || len(checks) != 0 {
		t.Errorf("main's checks %v, %v", checks, err)
	}
}

// GitHub shows bypass actors only to a token that may edit the ruleset.
func TestRulesetBypassHiddenFromReaders(t *testing.T) {
	sim := githubsim.New(t)
	sim.AddToken("reader", githubsim.Token{Lacks: []string{"administration"}})
	repo := sim.AddRepo("octo", "demo")
	repo.AddRuleset(githubsim.Ruleset{Name: "tags", Target: "tag", Include: []string{"~ALL"}, Rules: []string{"creation"},
		Bypass: []githubsim.BypassActor{{ActorType: "RepositoryRole", ActorID: 5}}})
	c, err := NewClient(sim.URL, "reader")
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Rulesets(context.Background(), "octo", "demo", "tag")
	if err != nil || len(got) != 1 || got[0].BypassKnown || got[0].Bypass != nil {
		t.Fatalf("rulesets %+v, %v", got, err)
	}
}

func TestProtectionStatusChecks(t *testing.T) {
	ctx := context.Background()
	f := setup(t, false)
	for _, b := range []string{"main", "dev", "docs"} {
		f.repo.CommitOnBranch(b, "init", map[string]string{"a": b})
	}
	f.repo.ProtectBranch("main", "CI passed", "lint")
	f.repo.ProtectBranch("dev")
	if got, err := f.c.ProtectionStatusChecks(ctx, "octo", "demo", "main"); err != nil || !slices.Equal(got, []string{"CI passed", "lint"}) {
		t.Errorf("main: %v, %v", got, err)
	}
	for _, b := range []string{"dev", "docs"} {
		if _, err := f.c.ProtectionStatusChecks(ctx, "octo", "demo", b); !errors.Is(err, github.ErrNotProtected) {
			t.Errorf("%s: %v, want ErrNotProtected", b, err)
		}
	}
	if _, err := f.c.ProtectionStatusChecks(ctx, "octo", "demo", "nope"); err == nil || errors.Is(err, github.ErrNotProtected) || !github.NoAccess(err) {
		t.Errorf("unknown branch: %v", err)
	}
}

func TestEnvironmentsPoliciesAndSecretNames(t *testing.T) {
	ctx := context.Background()
	f := setup(t, false)
	f.repo.AddEnvironment(githubsim.Environment{Name: "release", Reviewers: []string{"alice", "bob"}, WaitTimer: 5,
		Policy: "custom", Policies: []githubsim.DeploymentPolicy{{Name: "v*", Type: "tag"}, {Name: "main", Type: "branch"}},
		Secrets: []string{"DOCKERHUB_LOGIN", "DOCKERHUB_TOKEN"}})
	f.repo.AddEnvironment(githubsim.Environment{Name: "dev-images", Policy: "protected"})
	f.repo.AddEnvironment(githubsim.Environment{Name: "open"})
	envs, err := f.c.Environments(ctx, "octo", "demo")
	if err != nil {
		t.Fatal(err)
	}
	want := []github.Environment{{Name: "release", RequiredReviewers: 2, Policy: github.PolicyCustom}, {Name: "dev-images", RequiredReviewers: 0, Policy: github.PolicyProtected}, {Name: "open", RequiredReviewers: 0, Policy: github.PolicyAll}}
	if !slices.Equal(envs, want) {
		t.Errorf("environments %+v, want %+v", envs, want)
	}
	ps, err := f.c.DeploymentPolicies(ctx, "octo", "demo", "release")
	if err != nil || !slices.Equal(ps, []github.DeploymentPolicy{{Name: "v*", Type: "tag"}, {Name: "main", Type: "branch"}}) {
		t.Errorf("policies %+v, %v", ps, err)
	}
	names, err := f.c.EnvironmentSecretNames(ctx, "octo", "demo", "release")
	if err != nil || !slices.Equal(names, []string{"DOCKERHUB_LOGIN", "DOCKERHUB_TOKEN"}) {
		t.Errorf("secret names %v, %v", names, err)
	}
	if _, err := f.c.EnvironmentSecretNames(ctx, "octo", "demo", "missing"); !github.NoAccess(err) {
		t.Errorf("missing environment: %v", err)
	}
}

func TestSecretAndVariableNamesArePaged(t *testing.T) {
	ctx := context.Background()
	f := setup(t, false)
	var want []string
	for i := range 130 {
		n := fmt.Sprintf("S%03d", i)
		f.repo.AddSecret(n)
		want = append(want, n)
	}
	for i := range 45 {
		f.repo.SetVariable(fmt.Sprintf("V%02d", i), fmt.Sprint(i))
	}
	f.repo.AddOrgSecret("CI_GITHUB_TOKEN")
	before := f.c.Requests()
	got, err := f.c.SecretNames(ctx, "octo", "demo")
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("secrets: %d names, %v", len(got), err)
	}
	if n := f.c.Requests() - before; n != 2 {
		t.Errorf("130 secrets took %d requests, want 2 pages of 100", n)
	}
	vars, err := f.c.Variables(ctx, "octo", "demo")
	if err != nil || len(vars) != 45 || vars["V44"] != "44" {
		t.Errorf("variables: %d, %v", len(vars), err)
	}
	org, err := f.c.OrgSecretNames(ctx, "octo", "demo")
	if err != nil || !slices.Equal(org, []string{"CI_GITHUB_TOKEN"}) {
		t.Errorf("organisation secrets %v, %v", org, err)
	}
}

// A token without a permission gets GitHub's 403, which NoAccess recognises.
func TestSettingsWithoutPermission(t *testing.T) {
	ctx := context.Background()
	sim := githubsim.New(t)
	sim.AddToken("reader", githubsim.Token{Lacks: []string{"administration", "actions", "secrets", "variables", "environments"}})
	repo := sim.AddRepo("octo", "demo")
	repo.CommitOnBranch("main", "init", map[string]string{"a": "b"})
	repo.AddEnvironment(githubsim.Environment{Name: "release"})
	c, err := NewClient(sim.URL, "reader")
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() error{
		"protection":   func() error { _, err := c.ProtectionStatusChecks(ctx, "octo", "demo", "main"); return err },
		"environments": func() error { _, err := c.Environments(ctx, "octo", "demo"); return err },
		"policies":     func() error { _, err := c.DeploymentPolicies(ctx, "octo", "demo", "release"); return err },
		"env secrets":  func() error { _, err := c.EnvironmentSecretNames(ctx, "octo", "demo", "release"); return err },
		"secrets":      func() error { _, err := c.SecretNames(ctx, "octo", "demo"); return err },
		"org secrets":  func() error { _, err := c.OrgSecretNames(ctx, "octo", "demo"); return err },
		"variables":    func() error { _, err := c.Variables(ctx, "octo", "demo"); return err },
	}
	for name, call := range calls {
		if err := call(); err == nil || !github.NoAccess(err) || errors.Is(err, github.ErrNotProtected) {
			t.Errorf("%s: %v, want a 403", name, err)
		}
	}
	if c.Stats().Retries != 0 {
		t.Errorf("a 403 for a missing permission was retried %d times", c.Stats().Retries)
	}
}

func TestDirAt(t *testing.T) {
	ctx := context.Background()
	f := setup(t, false)
	f.repo.CommitOnBranch("main", "init", map[string]string{".github/workflows/ci.yml": "x", ".github/workflows/release.yml": "y", ".github/CODEOWNERS": "*"})
	names, found, err := f.c.DirAt(ctx, "octo", "demo", ".github/workflows", "main")
	if err != nil || !found || !slices.Equal(names, []string{"ci.yml", "release.yml"}) {
		t.Errorf("DirAt = %v, %v, %v", names, found, err)
	}
	if _, found, err := f.c.DirAt(ctx, "octo", "demo", "nope", "main"); found || err != nil {
		t.Errorf("missing directory: %v, %v", found, err)
	}
	if _, _, err := f.c.DirAt(ctx, "octo", "demo", ".github/CODEOWNERS", "main"); err == nil {
		t.Error("a file listed as a directory")
	}
}
