package modelrelease

import (
	"errors"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/models/modelenv"
)

// The check token step reads what the token may do, not what its user may: GitHub reports
// the user's role in a repository's "permissions", so an admin's token that may only read
// contents looks like one that may push. Whatever the kind of token, one that may not
// write is refused before anything is built or written, naming what it lacks and the fix;
// one that may write goes on (here to read main, which the test has name a branch that
// does not exist, so the run stops there).
func TestCheckTokenReadsTheTokensGrantsNotItsUsersRole(t *testing.T) {
	tests := []struct {
		name  string
		token githubsim.Token
		want  []string // in the refusal; none when the token may write
	}{
		{"classic token with the repo scope", githubsim.Token{Role: "admin", Scopes: []string{"repo", "workflow"}}, nil},
		{"classic token without the repo scope", githubsim.Token{Role: "admin", Scopes: []string{"read:org", "workflow"}},
			[]string{"classic token", "X-OAuth-Scopes: read:org, workflow", "repo scope", "contents: write"}},
		{"fine-grained or App token with contents write", githubsim.Token{Role: "admin", PushAccess: true}, nil},
		{"fine-grained or App token with contents read", githubsim.Token{Role: "admin"},
			[]string{"may not write the contents of " + owner + "/" + repoName, "needs contents: write", "403 Resource not accessible by integration"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.sim.AddToken(worldToken, tc.token)
			_, _, err := w.run(ReleaseOptions{MainBranch: "trunk"}, nil)
			var fe *flow.Error
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want the run to stop at a step", err)
			}
			w.noWrites()
			if tc.want == nil {
				if fe.Step != "read main" {
					t.Errorf("a token that may write stopped at %q: %v", fe.Step, err)
				}
				return
			}
			if fe.Step != "check token" || !errors.Is(err, modelenv.ErrNoAccess) || fe.Next == "" {
				t.Fatalf("err = %v, want check token to refuse the token with advice", err)
			}
			for _, w := range append(tc.want, "give CI_GITHUB_TOKEN") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the refusal lacks %q: %v", w, err)
				}
			}
		})
	}
}
