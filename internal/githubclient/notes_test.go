package githubclient

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/github"
)

func TestGenerateNotes(t *testing.T) {
	tests := []struct {
		name      string
		push      bool
		fault     *githubsim.Fault
		req       github.NotesRequest
		wantBody  []string // substrings, in order
		wantErr   string
		wantCalls int
	}{
		{
			name: "since the previous release", push: true,
			req:       github.NotesRequest{TagName: "v0.2.0", PreviousTagName: "v0.1.0"},
			wantBody:  []string{"## What's Changed\n* fix: retry by @bob in https://github.com/octo/demo/pull/2\n", "## New Contributors\n* @bob", "**Full Changelog**: https://github.com/octo/demo/compare/v0.1.0...v0.2.0"},
			wantCalls: 1,
		},
		{
			name: "first release", push: true,
			req:       github.NotesRequest{TagName: "v0.1.0"},
			wantBody:  []string{"* feat: first by @alice", "**Full Changelog**: https://github.com/octo/demo/commits/v0.1.0"},
			wantCalls: 1,
		},
		{
			name: "a lost answer is asked for again", push: true,
			fault:     &githubsim.Fault{Kind: githubsim.FaultStatus, Status: http.StatusBadGateway, Times: 2},
			req:       github.NotesRequest{TagName: "v0.2.0", PreviousTagName: "v0.1.0"},
			wantBody:  []string{"compare/v0.1.0...v0.2.0"},
			wantCalls: 3,
		},
		{
			name: "a read-only token is refused once", push: false,
			req:     github.NotesRequest{TagName: "v0.2.0"},
			wantErr: "generate the notes of v0.2.0 in octo/demo", wantCalls: 1,
		},
		{
			name: "an unknown previous tag is refused once", push: true,
			req:     github.NotesRequest{TagName: "v0.2.0", PreviousTagName: "v0.0.1"},
			wantErr: "previous_tag_name", wantCalls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t, tt.push)
			f.repo.CommitOnBranch("dev", "init", nil)
			_, first := f.repo.MergePullRequest(githubsim.MergedPull{Title: "feat: first", Author: "alice"})
			f.repo.AnnotatedTag("v0.1.0", first, githubsim.ValidSignature())
			_, second := f.repo.MergePullRequest(githubsim.MergedPull{Title: "fix: retry", Author: "bob"})
			f.repo.AnnotatedTag("v0.2.0", second, githubsim.ValidSignature())
			if tt.fault != nil {
				f.sim.InjectFault(http.MethodPost, "/repos/*/*/releases/generate-notes", *tt.fault)
			}
			got, err := f.c.GenerateNotes(context.Background(), "octo", "demo", tt.req)
			if calls := f.sim.Count(http.MethodPost, "/repos/octo/demo/releases/generate-notes"); calls != tt.wantCalls {
				t.Errorf("%d calls, want %d", calls, tt.wantCalls)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), token) {
					t.Fatal("the token reached the error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tt.req.TagName {
				t.Errorf("name %q", got.Name)
			}
			rest := got.Body
			for _, w := range tt.wantBody {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("body lacks %q (in order):\n%s", w, got.Body)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}
