package githubsim

import (
	"encoding/json"
	"net/http"
	"testing"
)

func TestGetRepoReportsTheUsersRole(t *testing.T) {
	tests := []struct {
		name       string
		token      Token
		wantStatus int
		wantPush   bool
	}{
		{"push access", Token{PushAccess: true}, 200, true},
		{"read only", Token{}, 200, false},
		{"a read-only token of a user who may write", Token{Role: "write"}, 200, true},
		{"limited to this repository", Token{PushAccess: true, Repos: []string{"OCTO/demo"}}, 200, true},
		{"limited to another repository", Token{PushAccess: true, Repos: []string{"octo/other"}}, 404, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(t)
			s.AddToken(testToken, tc.token)
			s.AddRepo("octo", "demo")
			var repo struct {
				FullName      string          `json:"full_name"`
				DefaultBranch string          `json:"default_branch"`
				Permissions   map[string]bool `json:"permissions"`
			}
			resp := get(t, s, "GET", "/repos/octo/demo", nil, "", &repo)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			if tc.wantStatus != 200 {
				return
			}
			if repo.FullName != "octo/demo" || repo.DefaultBranch != "main" {
				t.Errorf("repository %+v", repo)
			}
			if !repo.Permissions["pull"] || repo.Permissions["push"] != tc.wantPush || repo.Permissions["admin"] {
				t.Errorf("permissions %v, want pull and push=%v", repo.Permissions, tc.wantPush)
			}
		})
	}
}

func TestGetRepoSendsNoPermissionsToAnonymousReads(t *testing.T) {
	s := New(t, WithAnonymousReads())
	s.AddRepo("octo", "demo")
	resp, err := http.Get(s.URL + "/repos/octo/demo")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var repo map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&repo); err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	if _, ok := repo["permissions"]; ok || repo["full_name"] != "octo/demo" {
		t.Errorf("an anonymous read got %v", repo)
	}
}
