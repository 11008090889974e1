package githubsim

import (
	"net/http"
	"strings"
	"testing"
)

type pullOut struct {
	Number   int     `json:"number"`
	State    string  `json:"state"`
	Title    string  `json:"title"`
	Body     *string `json:"body"`
	HTMLURL  string  `json:"html_url"`
	Updated  string  `json:"updated_at"`
	ClosedAt *string `json:"closed_at"`
	Head     struct {
		Label, Ref, SHA string
	} `json:"head"`
	Base struct{ Ref string } `json:"base"`
}

type errorOut struct {
	Message string
	Errors  []struct{ Resource, Code, Field, Message string }
}

func pullFixture(t *testing.T) (*Server, *Repo) {
	t.Helper()
	s, repo := newRepo(t, true)
	main := repo.CommitOnBranch("main", "init", map[string]string{"a": "a\n"})
	repo.SetBranch("feature", repo.AddCommit("feature", []string{main}, map[string]string{"a": "b\n"}))
	repo.SetBranch("empty", main)
	return s, repo
}

func TestPullRequestLifecycle(t *testing.T) {
	s, repo := pullFixture(t)
	const create = `{"title": "chore: bump", "head": "octo:feature", "base": "main", "body": "first"}`
	var pr pullOut
	if resp := get(t, s, "POST", "/repos/octo/demo/pulls", nil, create, &pr); resp.StatusCode != 201 {
		t.Fatalf("create: status %d", resp.StatusCode)
	}
	if pr.Number != 1 || pr.State != "open" || pr.Head.Label != "octo:feature" || pr.Head.SHA != repo.Branch("feature") ||
		pr.Base.Ref != "main" || pr.HTMLURL != "https://github.com/octo/demo/pull/1" {
		t.Errorf("created %+v", pr)
	}

	var dup errorOut
	if resp := get(t, s, "POST", "/repos/octo/demo/pulls", nil, create, &dup); resp.StatusCode != 422 ||
		len(dup.Errors) != 1 || dup.Errors[0].Message != "A pull request already exists for octo:feature." {
		t.Errorf("second create: %d %+v", resp.StatusCode, dup)
	}

	list := func(query string) []pullOut {
		var out []pullOut
		if resp := get(t, s, "GET", "/repos/octo/demo/pulls"+query, nil, "", &out); resp.StatusCode != 200 {
			t.Fatalf("list %s: status %d", query, resp.StatusCode)
		}
		return out
	}
	if got := list("?head=octo%3Afeature&state=open&base=main"); len(got) != 1 || got[0].Number != 1 {
		t.Errorf("open by head: %+v", got)
	}
	if got := list("?head=octo%3Aother"); len(got) != 0 {
		t.Errorf("another head: %+v", got)
	}

	// A pull request follows its branch while open.
	repo.CommitOnBranch("feature", "more", map[string]string{"c": "c\n"})
	if got := list("?head=octo%3Afeature"); got[0].Head.SHA != repo.Branch("feature") {
		t.Errorf("head sha %s, want the branch's new head", got[0].Head.SHA)
	}

	var edited pullOut
	get(t, s, "PATCH", "/repos/octo/demo/pulls/1", nil, `{"title": "chore: bump two", "body": "second"}`, &edited)
	if edited.Title != "chore: bump two" || edited.Body == nil || *edited.Body != "second" || edited.Updated == pr.Updated {
		t.Errorf("edited %+v", edited)
	}
	var same pullOut
	get(t, s, "PATCH", "/repos/octo/demo/pulls/1", nil, `{"title": "chore: bump two"}`, &same)
	if same.Updated != edited.Updated {
		t.Errorf("an edit that changes nothing moved updated_at: %s → %s", edited.Updated, same.Updated)
	}

	var closed pullOut
	get(t, s, "PATCH", "/repos/octo/demo/pulls/1", nil, `{"state": "closed"}`, &closed)
	if closed.State != "closed" || closed.ClosedAt == nil {
		t.Errorf("closed %+v", closed)
	}
	if got := list("?head=octo%3Afeature&state=open"); len(got) != 0 {
		t.Errorf("open after close: %+v", got)
	}
	if got := list("?head=octo%3Afeature&state=closed"); len(got) != 1 {
		t.Errorf("closed by head: %+v", got)
	}
	// The head is free again: a new pull request gets the next number.
	if resp := get(t, s, "POST", "/repos/octo/demo/pulls", nil, create, &pr); resp.StatusCode != 201 || pr.Number != 2 {
		t.Errorf("create after close: %d, number %d", resp.StatusCode, pr.Number)
	}
	var reopen errorOut
	if resp := get(t, s, "PATCH", "/repos/octo/demo/pulls/1", nil, `{"state": "open"}`, &reopen); resp.StatusCode != 422 ||
		!strings.Contains(reopen.Errors[0].Message, "already exists") {
		t.Errorf("reopen beside an open one: %d %+v", resp.StatusCode, reopen)
	}
	if got := len(repo.PullRequests()); got != 2 {
		t.Errorf("%d pull requests, want 2", got)
	}
}

func TestPullRequestErrors(t *testing.T) {
	s, _ := pullFixture(t)
	tests := []struct {
		name, method, path, body string
		wantStatus               int
		want                     string // in the message or the first error
	}{
		{"missing title", "POST", "/repos/octo/demo/pulls", `{"head": "feature", "base": "main"}`, 422, "missing_field title"},
		{"unknown head branch", "POST", "/repos/octo/demo/pulls", `{"title": "t", "head": "octo:nope", "base": "main"}`, 422, "invalid head"},
		{"head in another owner", "POST", "/repos/octo/demo/pulls", `{"title": "t", "head": "fork:feature", "base": "main"}`, 422, "invalid head"},
		{"unknown base branch", "POST", "/repos/octo/demo/pulls", `{"title": "t", "head": "feature", "base": "nope"}`, 422, "invalid base"},
		{"no commits beyond the base", "POST", "/repos/octo/demo/pulls", `{"title": "t", "head": "empty", "base": "main"}`, 422, "No commits between main and empty"},
		{"unknown number", "PATCH", "/repos/octo/demo/pulls/99", `{"title": "t"}`, 404, "Not Found"},
		{"bad state", "GET", "/repos/octo/demo/pulls?state=merged", "", 422, "invalid state"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out errorOut
			resp := get(t, s, tt.method, tt.path, nil, tt.body, &out)
			got := out.Message
			if len(out.Errors) > 0 {
				e := out.Errors[0]
				got += " " + strings.TrimSpace(e.Code+" "+e.Field+" "+e.Message)
			}
			if resp.StatusCode != tt.wantStatus || !strings.Contains(got, tt.want) {
				t.Errorf("%d %q, want %d %q", resp.StatusCode, got, tt.wantStatus, tt.want)
			}
		})
	}
	// "merged" is not a state GitHub's description allows, on purpose.
	expectMismatches(t, s, `GET /repos/octo/demo/pulls (operation GET /repos/{owner}/{repo}/pulls): request: parameter "state" in query: /: value is not one of the allowed values ["open","closed","all"]`)
}

func TestPullRequestListFilters(t *testing.T) {
	s, repo := pullFixture(t)
	repo.AddPullRequest(PullRequest{Title: "a", Head: "feature", Base: "main"})
	repo.AddPullRequest(PullRequest{Title: "b", Head: "empty", Base: "main", State: "closed"})
	repo.AddPullRequest(PullRequest{Title: "c", Head: "feature", Base: "empty"})
	tests := []struct {
		query string
		want  string // titles, newest first
	}{
		{"", "c a"},
		{"?state=all", "c b a"},
		{"?state=closed", "b"},
		{"?head=octo%3Afeature&base=main", "a"},
		{"?head=OCTO%3Afeature", "c a"},
		// GitHub ignores a head filter without its owner part and lists everything.
		{"?head=feature", "c a"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var out []pullOut
			get(t, s, "GET", "/repos/octo/demo/pulls"+tt.query, nil, "", &out)
			var titles []string
			for _, pr := range out {
				titles = append(titles, pr.Title)
			}
			if got := strings.Join(titles, " "); got != tt.want {
				t.Errorf("titles %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPullRequestListRevalidates(t *testing.T) {
	s, repo := pullFixture(t)
	repo.AddPullRequest(PullRequest{Title: "a", Head: "feature", Base: "main"})
	path := "/repos/octo/demo/pulls?head=octo%3Afeature"
	etag := get(t, s, "GET", path, nil, "", nil).Header.Get("ETag")
	if resp := get(t, s, "GET", path, http.Header{"If-None-Match": {etag}}, "", nil); resp.StatusCode != http.StatusNotModified {
		t.Errorf("unchanged list: %d, want 304", resp.StatusCode)
	}
	get(t, s, "PATCH", "/repos/octo/demo/pulls/1", nil, `{"body": "new"}`, nil)
	if resp := get(t, s, "GET", path, http.Header{"If-None-Match": {etag}}, "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("list after an edit: %d, want 200", resp.StatusCode)
	}
}
