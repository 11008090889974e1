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

func ptr[T any](v T) *T { return &v }

func TestDraftLifecycle(t *testing.T) {
	ctx := context.Background()
	f := setup(t, true)
	first := f.repo.CommitOnBranch("release-1.31", "first", map[string]string{"a": "1"})
	second := f.repo.CommitOnBranch("release-1.31", "second", map[string]string{"a": "2"})
	f.repo.AddRelease(githubsim.Release{TagName: "1.31.4.0", TargetCommitish: first})

	created, err := f.c.CreateRelease(ctx, "octo", "demo", github.NewRelease{TagName: "1.31.5.0", TargetCommitish: first, Draft: true, Body: "one"})
	if err != nil {
		t.Fatal(err)
	}
	list, err := f.c.PinnedReleases(ctx, "octo", "demo")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(list, func(r github.PinnedRelease) bool { return r.ID == created.ID })
	if i < 0 || list[i].TargetCommitish != first || !list[i].Draft {
		t.Fatalf("listed %+v", list)
	}

	moved, err := f.c.EditRelease(ctx, "octo", "demo", created.ID, github.ReleaseEdit{TargetCommitish: ptr(second), Body: ptr("two")})
	if err != nil || moved.TargetCommitish != second || moved.Body != "two" || !moved.Draft {
		t.Fatalf("move: %+v, %v", moved, err)
	}
	got, found, err := f.c.ReleaseByID(ctx, "octo", "demo", created.ID)
	if err != nil || !found || got.TargetCommitish != second {
		t.Fatalf("read back: %+v, %v, %v", got, found, err)
	}
	// GitHub accepts a second draft of the same tag, but not its publication over the first.
	dup, err := f.c.CreateRelease(ctx, "octo", "demo", github.NewRelease{TagName: "1.31.5.0", TargetCommitish: first, Draft: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.EditRelease(ctx, "octo", "demo", created.ID, github.ReleaseEdit{Draft: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	if tag := f.repo.Tag("1.31.5.0"); tag != second {
		t.Errorf("tag at %s, want the pinned commit %s", tag, second)
	}
	if _, err := f.c.EditRelease(ctx, "octo", "demo", dup.ID, github.ReleaseEdit{Draft: ptr(false)}); !errors.Is(err, github.ErrAlreadyExists) {
		t.Errorf("publishing a duplicate: %v, want ErrAlreadyExists", err)
	}
	if err := f.c.DeleteRelease(ctx, "octo", "demo", dup.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.c.DeleteRelease(ctx, "octo", "demo", dup.ID); !errors.Is(err, github.ErrNotFound) {
		t.Errorf("deleting twice: %v, want ErrNotFound", err)
	}
	if _, found, err := f.c.ReleaseByID(ctx, "octo", "demo", dup.ID); err != nil || found {
		t.Errorf("deleted release: %v, %v", found, err)
	}
	if _, err := f.c.EditRelease(ctx, "octo", "demo", dup.ID, github.ReleaseEdit{Body: ptr("x")}); !errors.Is(err, github.ErrNotFound) {
		t.Errorf("editing a deleted release: %v, want ErrNotFound", err)
	}
}

func TestTagNamesPages(t *testing.T) {
	ctx := context.Background()
	f := setup(t, false)
	sha := f.repo.CommitOnBranch("main", "c", nil)
	var want []string
	for i := range 130 {
		name := fmt.Sprintf("1.31.5.%d", i)
		f.repo.LightweightTag(name, sha)
		want = append(want, name)
	}
	got, err := f.c.TagNames(ctx, "octo", "demo")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got %d tags, want %d", len(got), len(want))
	}
	if n := f.sim.Count("GET", "/repos/octo/demo/tags"); n != 2 {
		t.Errorf("%d list requests, want 2 pages of 100", n)
	}
}
