package github

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// notesOnly answers GenerateNotes as GitHub would, and records what it was asked.
type notesOnly struct {
	Calls
	err   error
	asked []NotesRequest
}

func (n *notesOnly) GenerateNotes(_ context.Context, _, _ string, in NotesRequest) (GeneratedNotes, error) {
	n.asked = append(n.asked, in)
	return GeneratedNotes{Name: in.TagName}, n.err
}

// ProbeContentsWrite asks only when the role allows pushing and no scopes decide, asks
// for notes (which GitHub saves nothing of) at the default branch, and takes GitHub's
// refusal for the answer while any other failure stays an error.
func TestProbeContentsWrite(t *testing.T) {
	rw := Permissions{Known: true, Pull: true, Push: true, DefaultBranch: "trunk"}
	refused := &APIError{Endpoint: "POST /repos/o/r/releases/generate-notes", StatusCode: 403, Message: "Resource not accessible by integration", AcceptedPermissions: "contents=write"}
	tests := []struct {
		name    string
		p       Permissions
		err     error
		want    WriteProbe
		wantErr string
	}{
		{name: "allowed", p: rw, want: WriteProbe{Asked: true, Allowed: true}},
		{name: "refused, naming the permission", p: rw, err: refused,
			want: WriteProbe{Asked: true, Refusal: "POST /repos/o/r/releases/generate-notes: 403 Resource not accessible by integration", Needs: "contents=write"}},
		{name: "hidden", p: rw, err: &APIError{Endpoint: "POST /x", StatusCode: 404, Message: "Not Found"},
			want: WriteProbe{Asked: true, Refusal: "POST /x: 404 Not Found"}},
		{name: "a rate limit is no answer", p: rw, err: &APIError{Endpoint: "POST /x", StatusCode: 403, Message: "API rate limit exceeded for user ID 1."},
			wantErr: "asking whether the token may write o/r: POST /x: 403 API rate limit exceeded"},
		{name: "nor is a server fault", p: rw, err: &APIError{Endpoint: "POST /x", StatusCode: 502}, wantErr: "502"},
		{name: "a classic token's scopes decide", p: Permissions{Known: true, Pull: true, Push: true, Scopes: []string{"read:org"}}},
		{name: "a role that may not push decides", p: Permissions{Known: true, Pull: true}},
		{name: "no default branch to ask at", p: Permissions{Known: true, Pull: true, Push: true}, wantErr: "no default branch"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &notesOnly{err: tc.err}
			got, err := ProbeContentsWrite(context.Background(), c, "o", "r", tc.p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || (tc.err != nil && !errors.Is(err, tc.err)) {
					t.Fatalf("err = %v, want %q wrapping %v", err, tc.wantErr, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ProbeContentsWrite = %+v, %v; want %+v", got, err, tc.want)
			}
			if asked := len(c.asked) > 0; asked != tc.want.Asked {
				t.Fatalf("asked %v, want %v", c.asked, tc.want.Asked)
			}
			if tc.want.Asked && c.asked[0] != (NotesRequest{TagName: ProbeTag, TargetCommitish: "trunk"}) {
				t.Errorf("asked %+v, want notes of %s at the default branch", c.asked[0], ProbeTag)
			}
		})
	}
}

func TestWhyNoContentsWrite(t *testing.T) {
	rw := Permissions{Known: true, Pull: true, Push: true}
	withScopes := func(private bool, scopes ...string) Permissions {
		p := rw
		p.Private, p.Scopes = private, scopes
		return p
	}
	tests := []struct {
		name  string
		p     Permissions
		probe WriteProbe
		want  string // "" when the token may write
	}{
		{"a role without push", Permissions{Known: true, Pull: true, Scopes: []string{"repo"}}, WriteProbe{Asked: true, Allowed: true}, "role there does not allow pushing"},
		{"classic with repo", withScopes(true, "repo"), WriteProbe{}, ""},
		{"classic with public_repo, public", withScopes(false, "public_repo"), WriteProbe{}, ""},
		{"classic with public_repo, private", withScopes(true, "public_repo"), WriteProbe{}, "(X-OAuth-Scopes: public_repo) lack the repo scope it writes with"},
		{"classic without either", withScopes(false, "workflow", "read:org"), WriteProbe{}, "(X-OAuth-Scopes: workflow, read:org) lack the repo scope (or public_repo"},
		{"granted contents write", rw, WriteProbe{Asked: true, Allowed: true}, ""},
		{"refused", rw, WriteProbe{Asked: true, Refusal: "POST /x: 403 Resource not accessible by personal access token", Needs: "contents=write; a=read,b=write"},
			"needs contents: write, or a: read and b: write and saves nothing (POST /x: 403 Resource not accessible by personal access token)"},
		{"refused without naming a permission", rw, WriteProbe{Asked: true, Refusal: "POST /x: 404 Not Found"}, "needs contents: write and saves nothing (POST /x: 404 Not Found)"},
		{"never asked", rw, WriteProbe{}, "it was not asked"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := WhyNoContentsWrite(tc.p, tc.probe)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("WhyNoContentsWrite = %q, want %q", got, tc.want)
			}
		})
	}
}

// An error answer that names the permissions GitHub accepts says so, and keeps them when
// it crosses as plain data.
func TestAPIErrorNamesTheAcceptedPermissions(t *testing.T) {
	err := error(&APIError{Endpoint: "POST /repos/o/r/git/trees", StatusCode: 403, Message: "Resource not accessible by integration", AcceptedPermissions: "contents=write"})
	if got, want := err.Error(), "POST /repos/o/r/git/trees: 403 Resource not accessible by integration (the token needs contents=write)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := AcceptedPermissionsOf(errors.Join(errors.New("context"), err)); got != "contents=write" {
		t.Errorf("AcceptedPermissionsOf = %q", got)
	}
	if got := AcceptedPermissionsOf(errors.New("no answer")); got != "" {
		t.Errorf("AcceptedPermissionsOf of another error = %q", got)
	}
}
