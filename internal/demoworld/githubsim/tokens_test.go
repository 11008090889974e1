package githubsim

import (
	"net/http"
	"testing"
)

// A repository's "permissions" are the role of the token's user; what the token may write
// is its own grant: a classic token's scopes, any other's contents permission. Each kind of
// token is answered as GitHub answers it, on a read and on a write that saves nothing.
func TestTokensWriteByTheirGrantsNotTheirUsersRole(t *testing.T) {
	tests := []struct {
		name       string
		token      Token
		wantAdmin  bool
		wantPush   bool   // in the repository's permissions
		wantScopes string // X-OAuth-Scopes; "-" when absent
		wantStatus int    // of generate-notes
		wantNeeds  string // X-Accepted-GitHub-Permissions of the answer
	}{
		{"classic with repo", Token{Role: "admin", Scopes: []string{"repo", "workflow"}}, true, true, "repo, workflow", 200, ""},
		{"classic with public_repo, on a public repository", Token{Role: "admin", Scopes: []string{"public_repo"}}, true, true, "public_repo", 200, ""},
		{"classic without repo", Token{Role: "admin", Scopes: []string{"read:org"}}, true, true, "read:org", 404, ""},
		{"classic without scopes", Token{Role: "write", Scopes: []string{}}, false, true, "", 404, ""},
		{"fine-grained with contents write", Token{Role: "admin", PushAccess: true}, true, true, "-", 200, ""},
		{"fine-grained with contents read", Token{Role: "admin"}, true, true, "-", 403, "contents=write"},
		{"contents write for a user who may only read", Token{Role: "read", PushAccess: true}, false, false, "-", 403, "contents=write"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(t)
			s.AddToken(testToken, tc.token)
			repo := s.AddRepo("octo", "demo")
			repo.CommitOnBranch("main", "init", map[string]string{"README.md": "# demo\n"})
			var body struct {
				Permissions map[string]bool `json:"permissions"`
			}
			resp := get(t, s, http.MethodGet, "/repos/octo/demo", nil, "", &body)
			if resp.StatusCode != 200 || body.Permissions["admin"] != tc.wantAdmin || body.Permissions["push"] != tc.wantPush || !body.Permissions["pull"] {
				t.Errorf("GET: %d, permissions %v, want admin=%v push=%v", resp.StatusCode, body.Permissions, tc.wantAdmin, tc.wantPush)
			}
			scopes, sent := resp.Header.Get("X-OAuth-Scopes"), resp.Header.Values("X-OAuth-Scopes") != nil
			if !sent {
				scopes = "-"
			}
			if scopes != tc.wantScopes {
				t.Errorf("X-OAuth-Scopes %q, want %q", scopes, tc.wantScopes)
			}
			resp = get(t, s, http.MethodPost, "/repos/octo/demo/releases/generate-notes", nil, `{"tag_name":"probe","target_commitish":"main"}`, nil)
			if resp.StatusCode != tc.wantStatus || resp.Header.Get("X-Accepted-GitHub-Permissions") != tc.wantNeeds {
				t.Errorf("generate-notes: %d needing %q, want %d needing %q", resp.StatusCode, resp.Header.Get("X-Accepted-GitHub-Permissions"), tc.wantStatus, tc.wantNeeds)
			}
			if scopes != "-" && resp.Header.Get("X-OAuth-Scopes") != tc.wantScopes {
				t.Errorf("the write's X-OAuth-Scopes %q, want %q on every answer", resp.Header.Get("X-OAuth-Scopes"), tc.wantScopes)
			}
			// Every write is held to the same grant as the one that saves nothing.
			resp = get(t, s, http.MethodPost, "/repos/octo/demo/git/refs", nil, `{"ref":"refs/heads/x","sha":"`+repo.Branch("main")+`"}`, nil)
			want := tc.wantStatus
			if want == 200 {
				want = 201
			}
			if resp.StatusCode != want || resp.Header.Get("X-Accepted-GitHub-Permissions") != tc.wantNeeds {
				t.Errorf("create a branch: %d needing %q, want %d needing %q", resp.StatusCode, resp.Header.Get("X-Accepted-GitHub-Permissions"), want, tc.wantNeeds)
			}
		})
	}
}

// AddToken refuses a token GitHub cannot issue: a classic token with a fine-grained grant,
// a role GitHub has not.
func TestAddTokenRefusesWhatGitHubHasNot(t *testing.T) {
	for name, tok := range map[string]Token{
		"a classic token with a fine-grained grant": {Scopes: []string{"repo"}, PushAccess: true},
		"a role GitHub has not":                     {Role: "owner"},
	} {
		t.Run(name, func(t *testing.T) {
			s := New(t, WithoutDescriptionCheck())
			tb := &fatalRecorder{TB: t}
			s.tb = tb
			func() {
				defer func() { _ = recover() }()
				s.AddToken(testToken, tok)
			}()
			if !tb.fatal {
				t.Errorf("AddToken accepted %+v", tok)
			}
		})
	}
}

// fatalRecorder records a Fatalf and stops the call that made it.
type fatalRecorder struct {
	testing.TB
	fatal bool
}

func (f *fatalRecorder) Fatalf(string, ...any) {
	f.fatal = true
	panic(f)
}
