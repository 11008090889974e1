package githubclient

import (
	"context"
	"slices"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/github"
)

func TestRepoPermissions(t *testing.T) {
	for _, push := range []bool{true, false} {
		f := setup(t, push)
		p, found, err := f.c.RepoPermissions(context.Background(), "octo", "demo")
		if err != nil || !found || !p.Known || !p.Pull || p.Push != push || p.Admin || p.DefaultBranch != "main" || p.Private || p.Scopes != nil {
			t.Errorf("push=%v: RepoPermissions = %+v, %v, %v", push, p, found, err)
		}
	}
	f := setup(t, true)
	if _, found, err := f.c.RepoPermissions(context.Background(), "octo", "missing"); found || err != nil {
		t.Errorf("a missing repository: found %v, err %v", found, err)
	}
}

// RepoPermissions reads a classic token's scopes from X-OAuth-Scopes, and none for a
// fine-grained token; the role GitHub reports is the user's either way. A scope changed
// since the answer was cached is read from the 304 that revalidates it: the scopes
// describe the token, not the repository.
func TestRepoPermissionsReadAClassicTokensScopes(t *testing.T) {
	ctx := context.Background()
	f := setup(t, false)
	for _, tc := range []struct {
		name  string
		token githubsim.Token
		want  []string
	}{
		{"classic", githubsim.Token{Role: "admin", Scopes: []string{"repo", "workflow"}}, []string{"repo", "workflow"}},
		{"classic, scopes edited", githubsim.Token{Role: "admin", Scopes: []string{"read:org"}}, []string{"read:org"}},
		{"classic without scopes", githubsim.Token{Role: "admin", Scopes: []string{}}, nil},
		{"fine-grained", githubsim.Token{Role: "admin"}, nil},
	} {
		f.sim.AddToken(token, tc.token)
		p, found, err := f.c.RepoPermissions(ctx, "octo", "demo")
		if err != nil || !found || !p.Admin || !p.Push || !slices.Equal(p.Scopes, tc.want) {
			t.Errorf("%s: RepoPermissions = %+v, %v, %v; want an admin's role and scopes %q", tc.name, p, found, err, tc.want)
		}
	}
	if got := f.c.Stats().NotModified; got != 3 {
		t.Errorf("%d answers from the cache, want every read after the first (the role never changed)", got)
	}
}

// A write refused to a fine-grained token names, as GitHub does, the permission it needs.
func TestARefusedWriteNamesThePermissionItNeeds(t *testing.T) {
	f := setup(t, false)
	f.repo.CommitOnBranch("main", "init", map[string]string{"README.md": "# demo\n"})
	f.sim.AddToken(token, githubsim.Token{Role: "admin"})
	_, err := f.c.GenerateNotes(context.Background(), "octo", "demo", github.NotesRequest{TagName: "v1", TargetCommitish: "main"})
	if github.StatusOf(err) != 403 || github.AcceptedPermissionsOf(err) != "contents=write" {
		t.Fatalf("err = %v, want a 403 needing contents=write", err)
	}
}
