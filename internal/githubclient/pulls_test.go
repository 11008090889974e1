package githubclient

import (
	"context"
	"errors"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/github"
)

func TestPullRequestOperations(t *testing.T) {
	ctx := context.Background()
	f := setup(t, true)
	main := f.repo.CommitOnBranch("main", "init", map[string]string{"a": "1\n"})
	f.repo.SetBranch("automation/x", f.repo.AddCommit("bump", []string{main}, map[string]string{"a": "2\n"}))
	// Another owner's branch of the same name must not be mistaken for ours.
	f.repo.AddPullRequest(githubsim.PullRequest{Title: "other", Head: "feature", Base: "main"})

	if _, found, err := f.c.OpenPullRequest(ctx, "octo", "demo", "automation/x", "main"); found || err != nil {
		t.Fatalf("OpenPullRequest before any = %v, %v", found, err)
	}
	np := github.NewPullRequest{Title: "chore: bump", Body: "body 1", Head: "automation/x", Base: "main"}
	created, err := f.c.CreatePullRequest(ctx, "octo", "demo", np)
	if err != nil {
		t.Fatal(err)
	}
	if created.Number != 2 || created.State != "open" || created.HeadSHA != f.repo.Branch("automation/x") ||
		created.URL != "https://github.com/octo/demo/pull/2" {
		t.Errorf("created %+v", created)
	}
	if _, err := f.c.CreatePullRequest(ctx, "octo", "demo", np); !errors.Is(err, github.ErrAlreadyExists) {
		t.Errorf("second CreatePullRequest: %v, want ErrAlreadyExists", err)
	}
	open, found, err := f.c.OpenPullRequest(ctx, "octo", "demo", "automation/x", "main")
	if err != nil || !found || open.Number != created.Number || open.Body != "body 1" {
		t.Fatalf("OpenPullRequest = %+v, %v, %v", open, found, err)
	}

	title, body := "chore: bump twice", "body 2"
	edited, err := f.c.EditPullRequest(ctx, "octo", "demo", open.Number, github.PullRequestEdit{Title: &title, Body: &body})
	if err != nil || edited.Title != title || edited.Body != body || edited.State != "open" {
		t.Fatalf("EditPullRequest = %+v, %v", edited, err)
	}
	closed := "closed"
	if pr, err := f.c.EditPullRequest(ctx, "octo", "demo", open.Number, github.PullRequestEdit{State: &closed}); err != nil || pr.State != "closed" || pr.Title != title {
		t.Fatalf("closing = %+v, %v", pr, err)
	}
	if _, found, err := f.c.OpenPullRequest(ctx, "octo", "demo", "automation/x", "main"); found || err != nil {
		t.Errorf("OpenPullRequest after closing = %v, %v", found, err)
	}
	if _, err := f.c.EditPullRequest(ctx, "octo", "demo", 99, github.PullRequestEdit{Title: &title}); err == nil {
		t.Errorf("editing a missing pull request succeeded")
	}
}
