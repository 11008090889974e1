package githubclient

import (
	"context"
	"errors"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/github"
)

func TestCreateOrgRepo(t *testing.T) {
	ctx := context.Background()
	f := setup(t, true)
	r := github.NewRepository{Name: "models-keda", Description: "Generated model repository for keda", Public: true, WithReadme: true}
	if err := f.c.CreateOrgRepo(ctx, "cloudcoil", r); err != nil {
		t.Fatal(err)
	}
	if err := f.c.ReplaceTopics(ctx, "cloudcoil", "models-keda", []string{"cloudcoil", "Cloudcoil-Models"}); err != nil {
		t.Fatal(err)
	}
	repo := f.sim.Repo("cloudcoil/models-keda")
	if repo == nil || repo.Description() != r.Description || len(repo.Topics()) != 2 || repo.Topics()[1] != "cloudcoil-models" {
		t.Fatalf("created %v", repo)
	}
	if head, found, err := f.c.BranchHead(ctx, "cloudcoil", "models-keda", "main"); err != nil || !found || repo.Files(head)["README.md"] == "" {
		t.Errorf("main after creation with a README: %s, %v, %v", head, found, err)
	}
	if err := f.c.CreateOrgRepo(ctx, "cloudcoil", r); !errors.Is(err, github.ErrAlreadyExists) {
		t.Errorf("creating it again: %v", err)
	}

	// A lost response: the repository was created; the read-back sees it, nothing is repeated.
	f.sim.InjectFault("POST", "/orgs/cloudcoil/repos", githubsim.Fault{Kind: githubsim.FaultStatus, Status: 502, Times: 1, AfterEffect: true})
	if err := f.c.CreateOrgRepo(ctx, "cloudcoil", github.NewRepository{Name: "models-istio"}); err != nil || f.sim.Repo("cloudcoil/models-istio") == nil {
		t.Errorf("after a lost response: %v", err)
	}

	g := setup(t, false)
	if err := g.c.CreateOrgRepo(ctx, "cloudcoil", r); !errors.Is(err, github.ErrNotAllowed) {
		t.Errorf("without push access: %v", err)
	}
	g.repo.CommitOnBranch("main", "x", map[string]string{"a": "b"})
	if err := g.c.ReplaceTopics(ctx, "octo", "demo", []string{"x"}); !errors.Is(err, github.ErrNotAllowed) {
		t.Errorf("topics without push access: %v", err)
	}
}
