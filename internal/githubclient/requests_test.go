package githubclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"dagger/shipyard/internal/github"
)

// recorded is what the test server saw of one request.
type recorded struct {
	method, path, query string
	header              http.Header
	body                string
}

// canned serves one answer to every request and records the requests.
type canned struct {
	status int
	body   string
	header http.Header

	mu   sync.Mutex
	seen []recorded
}

func (s *canned) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.seen = append(s.seen, recorded{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Clone(), string(body)})
	s.mu.Unlock()
	for k, vs := range s.header {
		w.Header()[k] = vs
	}
	if s.body != "" {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	w.WriteHeader(s.status)
	_, _ = io.WriteString(w, s.body)
}

func (s *canned) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.seen...)
}

// cannedClient starts a server answering status and body to everything, and a client of
// it whose retries do not sleep.
func cannedClient(t *testing.T, status int, body string) (*Client, *canned) {
	t.Helper()
	s := &canned{status: status, body: body}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL+"/api/v3", token,
		WithSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() }))
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

func TestErrorMapping(t *testing.T) {
	ctx := context.Background()
	const (
		refExists    = `{"message":"Reference already exists","documentation_url":"https://docs.github.com/rest/git/refs#create-a-reference","status":"422"}`
		notFF        = `{"message":"Update is not a fast forward","documentation_url":"https://docs.github.com/rest/git/refs#update-a-reference","status":"422"}`
		refMissing   = `{"message":"Reference does not exist","status":"422"}`
		notFound     = `{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}`
		releaseTaken = `{"message":"Validation Failed","errors":[{"resource":"Release","code":"already_exists","field":"tag_name"}],"status":"422"}`
		pullOpen     = `{"message":"Validation Failed","errors":[{"resource":"PullRequest","code":"custom","message":"A pull request already exists for octo:automation/x."}],"status":"422"}`
		stringErrors = `{"message":"Validation Failed","errors":["A pull request already exists for octo:automation/x."],"status":"422"}`
		noCommits    = `{"message":"Validation Failed","errors":[{"resource":"PullRequest","code":"custom","message":"No commits between main and automation/x"}],"status":"422"}`
		forbidden    = `{"message":"Resource not accessible by integration","status":"403"}`
	)
	createBranch := func(c *Client) error { return c.CreateBranch(ctx, "octo", "demo", "automation/x", "abc") }
	updateBranch := func(c *Client) error { return c.UpdateBranch(ctx, "octo", "demo", "automation/x", "abc", false) }
	createRelease := func(c *Client) error {
		_, err := c.CreateRelease(ctx, "octo", "demo", github.NewRelease{TagName: "v1"})
		return err
	}
	editRelease := func(c *Client) error {
		_, err := c.EditRelease(ctx, "octo", "demo", 7, github.ReleaseEdit{Draft: ptr(false)})
		return err
	}
	deleteRelease := func(c *Client) error { return c.DeleteRelease(ctx, "octo", "demo", 7) }
	createPull := func(c *Client) error {
		_, err := c.CreatePullRequest(ctx, "octo", "demo", github.NewPullRequest{Title: "t", Head: "automation/x", Base: "main"})
		return err
	}
	releasePages := func(c *Client) error {
		_, _, err := github.ReleasePages(ctx, c, "octo", "demo", 100, 1, func([]github.Release) bool { return true })
		return err
	}

	tests := []struct {
		name       string
		op         func(*Client) error
		status     int
		body       string
		want       error  // sentinel the error must wrap; nil: none of them
		wantText   string // substring of the message
		wantStatus int    // github.StatusOf of the error
		wantUnsure bool   // OutcomeUnknown
	}{
		{"branch exists", createBranch, 422, refExists, github.ErrAlreadyExists, "POST /api/v3/repos/octo/demo/git/refs: 422 Reference already exists", 422, false},
		{"branch exists, other spelling", createBranch, 422, `{"message":" reference ALREADY exists "}`, github.ErrAlreadyExists, "", 422, false},
		{"create branch refused otherwise", createBranch, 422, notFF, nil, "Update is not a fast forward", 422, false},
		{"create branch forbidden", createBranch, 403, forbidden, nil, "403 Resource not accessible by integration", 403, false},
		{"not a fast forward", updateBranch, 422, notFF, github.ErrNotFastForward, "PATCH /api/v3/repos/octo/demo/git/refs/heads/automation/x: 422", 422, false},
		{"update of a missing ref (422)", updateBranch, 422, refMissing, github.ErrNotFound, "", 422, false},
		{"update of a missing ref (404)", updateBranch, 404, notFound, github.ErrNotFound, "", 404, false},
		{"update lost behind a gateway", updateBranch, 502, "<html>bad gateway</html>", nil, "502 Bad Gateway", 502, true},
		{"release tag taken", createRelease, 422, releaseTaken, github.ErrAlreadyExists, "(Release tag_name already_exists)", 422, false},
		{"release refused otherwise", createRelease, 422, `{"message":"Validation Failed","errors":[{"resource":"Release","code":"invalid","field":"make_latest"}]}`, nil, "make_latest", 422, false},
		{"release already_exists at another status", createRelease, 400, releaseTaken, github.ErrAlreadyExists, "", 400, false},
		{"release create lost", createRelease, 504, "", nil, "504 Gateway Timeout", 504, true},
		{"release create 501 is definite", createRelease, 501, "", nil, "501", 501, false},
		{"publish over a published tag", editRelease, 422, releaseTaken, github.ErrAlreadyExists, "", 422, false},
		{"edit of a deleted release", editRelease, 404, notFound, github.ErrNotFound, "", 404, false},
		{"delete of a deleted release", deleteRelease, 404, notFound, github.ErrNotFound, "DELETE /api/v3/repos/octo/demo/releases/7: 404 Not Found", 404, false},
		{"pull request open already", createPull, 422, pullOpen, github.ErrAlreadyExists, "A pull request already exists for octo:automation/x.", 422, false},
		{"pull request open already, as a string", createPull, 422, stringErrors, github.ErrAlreadyExists, "", 422, false},
		{"pull request without commits", createPull, 422, noCommits, nil, "No commits between", 422, false},
		{"listing of a missing repository", releasePages, 404, notFound, github.ErrNotFound, "GET /api/v3/repos/octo/demo/releases: 404", 404, false},
		{"accepted is not a result", createRelease, 202, `{}`, nil, "202 accepted", 202, false},
	}
	sentinels := []error{github.ErrNotFound, github.ErrAlreadyExists, github.ErrNotFastForward}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := cannedClient(t, tt.status, tt.body)
			err := tt.op(c)
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range sentinels {
				if errors.Is(err, s) != (s == tt.want) {
					t.Errorf("errors.Is(err, %v) = %v; err = %v", s, errors.Is(err, s), err)
				}
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("err = %q, want it to contain %q", err, tt.wantText)
			}
			if got := github.StatusOf(err); got != tt.wantStatus {
				t.Errorf("StatusOf = %d, want %d", got, tt.wantStatus)
			}
			if got := github.OutcomeUnknown(err); got != tt.wantUnsure {
				t.Errorf("OutcomeUnknown = %v, want %v", got, tt.wantUnsure)
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("token in the error: %v", err)
			}
		})
	}
}

func TestNoCommonAncestorIsAnAnswer(t *testing.T) {
	c, _ := cannedClient(t, 404, `{"message":"No common ancestor between abc and main.","status":"404"}`)
	if ok, err := c.IsAncestor(context.Background(), "octo", "demo", "abc", "main"); ok || err != nil {
		t.Errorf("IsAncestor = %v, %v; want false, nil", ok, err)
	}
	c, _ = cannedClient(t, 404, `{"message":"Not Found","status":"404"}`)
	if _, err := c.IsAncestor(context.Background(), "octo", "demo", "abc", "gone"); github.StatusOf(err) != 404 {
		t.Errorf("IsAncestor on a missing branch = %v, want the 404", err)
	}
	c, _ = cannedClient(t, 200, `{"status":"ahead","ahead_by":1}`)
	if ok, err := c.IsAncestor(context.Background(), "octo", "demo", "abc", "main"); ok || err != nil {
		t.Errorf("IsAncestor without behind_by = %v, %v; want false, nil", ok, err)
	}
}

func TestMalformedAnswersAreErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, body string
		op         func(*Client) error
		wantText   string
	}{
		{"truncated JSON", `{"object":{"type":"commit","sha":`, func(c *Client) error {
			_, _, err := c.BranchHead(ctx, "octo", "demo", "main")
			return err
		}, "GET /api/v3/repos/octo/demo/git/ref/heads/main: decoding the answer"},
		{"wrong shape", `[1,2]`, func(c *Client) error {
			_, err := c.CommitTree(ctx, "octo", "demo", "abc")
			return err
		}, "decoding the answer"},
		{"empty body", ``, func(c *Client) error {
			_, err := c.CommitTree(ctx, "octo", "demo", "abc")
			return err
		}, "has no tree"},
		{"file too large to inline", `{"type":"file","encoding":"none","content":""}`, func(c *Client) error {
			_, _, err := c.FileAt(ctx, "octo", "demo", "big.bin", "main")
			return err
		}, "too large"},
		{"bad base64", `{"type":"file","encoding":"base64","content":"!!"}`, func(c *Client) error {
			_, _, err := c.FileAt(ctx, "octo", "demo", "a.txt", "main")
			return err
		}, "illegal base64"},
		{"symlink", `{"type":"symlink","target":"x"}`, func(c *Client) error {
			_, _, err := c.FileAt(ctx, "octo", "demo", "link", "main")
			return err
		}, "is a symlink, not a file"},
		{"directory", `[{"type":"file","name":"a"}]`, func(c *Client) error {
			_, _, err := c.FileAt(ctx, "octo", "demo", "docs", "main")
			return err
		}, "is a directory, not a file"},
		{"branch at a tag object", `{"object":{"type":"tag","sha":"abc"}}`, func(c *Client) error {
			_, _, err := c.BranchHead(ctx, "octo", "demo", "main")
			return err
		}, "points at a tag, not a commit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := cannedClient(t, 200, tt.body)
			if err := tt.op(c); err == nil || !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("err = %v, want one containing %q", err, tt.wantText)
			}
		})
	}
}

func TestFileContentEncodings(t *testing.T) {
	for body, want := range map[string]string{
		// GitHub wraps base64 at 60 columns.
		`{"type":"file","encoding":"base64","content":"aGVsbG8g\nd29ybGQK\n"}`: "hello world\n",
		`{"type":"file","encoding":"","content":"plain"}`:                      "plain",
		`{"type":"file"}`: "",
	} {
		c, _ := cannedClient(t, 200, body)
		got, found, err := c.FileAt(context.Background(), "octo", "demo", "a.txt", "")
		if err != nil || !found || string(got) != want {
			t.Errorf("FileAt with %s = %q, %v, %v; want %q", body, got, found, err, want)
		}
	}
}

func TestRequestPathsAreEscaped(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		op        func(*Client)
		wantPath  string
		wantQuery string
	}{
		{"branch with slashes keeps them", func(c *Client) { c.BranchHead(ctx, "octo", "demo", "automation/model-versions") },
			"/api/v3/repos/octo/demo/git/ref/heads/automation/model-versions", ""},
		// Spaces and ? are no part of a branch name git accepts, and never sent (gitdata_test.go).
		{"branch segments are escaped", func(c *Client) { c.BranchHead(ctx, "octo", "demo", "feat/a#b%c") },
			"/api/v3/repos/octo/demo/git/ref/heads/feat/a%23b%25c", ""},
		{"tag ref", func(c *Client) { c.TagRef(ctx, "octo", "demo", "v1.0+build") },
			"/api/v3/repos/octo/demo/git/ref/tags/v1.0+build", ""},
		{"update keeps the ref's slashes", func(c *Client) { c.UpdateBranch(ctx, "octo", "demo", "automation/model-versions", "abc", true) },
			"/api/v3/repos/octo/demo/git/refs/heads/automation/model-versions", ""},
		{"content path keeps slashes, ref is a parameter", func(c *Client) { c.FileAt(ctx, "octo", "demo", "docs/a b/c?#.md", "release/1.0") },
			"/api/v3/repos/octo/demo/contents/docs/a%20b/c%3F%23.md", "ref=release%2F1.0"},
		{"content path drops a trailing slash, no ref", func(c *Client) { c.FileAt(ctx, "octo", "demo", "docs/", "") },
			"/api/v3/repos/octo/demo/contents/docs", ""},
		{"compare escapes each side whole", func(c *Client) { c.CompareFiles(ctx, "octo", "demo", "main", "automation/x") },
			"/api/v3/repos/octo/demo/compare/main...automation%2Fx", ""},
		{"ancestor check asks for one commit", func(c *Client) { c.IsAncestor(ctx, "octo", "demo", "abc123", "release/1.x") },
			"/api/v3/repos/octo/demo/compare/abc123...release%2F1.x", "per_page=1"},
		{"release tag is one segment", func(c *Client) { c.ReleaseByTag(ctx, "octo", "demo", "models/v1 beta") },
			"/api/v3/repos/octo/demo/releases/tags/models%2Fv1%20beta", ""},
		{"workflow file is one segment; filters sorted", func(c *Client) {
			c.LatestWorkflowRun(ctx, "octo", "demo", "ci build.yml", "push", "dev/x", "abc")
		}, "/api/v3/repos/octo/demo/actions/workflows/ci%20build.yml/runs", "branch=dev%2Fx&event=push&head_sha=abc&per_page=100"},
		{"workflow filters left out when empty", func(c *Client) { c.LatestWorkflowRun(ctx, "octo", "demo", "ci.yml", "", "", "abc") },
			"/api/v3/repos/octo/demo/actions/workflows/ci.yml/runs", "head_sha=abc&per_page=100"},
		{"a run's jobs, of its latest attempt", func(c *Client) { c.WorkflowRunJobs(ctx, "octo", "demo", 42) },
			"/api/v3/repos/octo/demo/actions/runs/42/jobs", "filter=latest&per_page=100"},
		{"pull requests by owner-qualified head", func(c *Client) { c.OpenPullRequest(ctx, "octo", "demo", "automation/x", "main") },
			"/api/v3/repos/octo/demo/pulls", "base=main&head=octo%3Aautomation%2Fx&state=open"},
		{"releases page", func(c *Client) { c.Releases(ctx, "octo", "demo") },
			"/api/v3/repos/octo/demo/releases", "per_page=100"},
		{"release by id", func(c *Client) { c.ReleaseByID(ctx, "octo", "demo", 42) },
			"/api/v3/repos/octo/demo/releases/42", ""},
		{"pull request by number", func(c *Client) { c.EditPullRequest(ctx, "octo", "demo", 7, github.PullRequestEdit{}) },
			"/api/v3/repos/octo/demo/pulls/7", ""},
		{"owner and repository are segments", func(c *Client) { c.TagNames(ctx, "oc/to", "de?mo") },
			"/api/v3/repos/oc%2Fto/de%3Fmo/tags", "per_page=100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, s := cannedClient(t, 404, `{"message":"Not Found"}`)
			tt.op(c)
			seen := s.requests()
			if len(seen) != 1 {
				t.Fatalf("%d requests, want 1", len(seen))
			}
			if seen[0].path != tt.wantPath || seen[0].query != tt.wantQuery {
				t.Errorf("sent %s?%s\nwant %s?%s", seen[0].path, seen[0].query, tt.wantPath, tt.wantQuery)
			}
		})
	}
}

func TestDotDotPathsAreNeverSent(t *testing.T) {
	c, s := cannedClient(t, 200, `{}`)
	if _, _, err := c.FileAt(context.Background(), "octo", "demo", "docs/../../../user", "main"); err == nil || !strings.Contains(err.Error(), `".."`) {
		t.Errorf("err = %v, want a refusal of ..", err)
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestRequestHeadersAndBodies(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		op       func(*Client)
		wantBody string // JSON, compared as a value; "" means no body
	}{
		{"tree: a file inline, a deletion as a null sha", func(c *Client) {
			c.CreateTree(ctx, "octo", "demo", "base", []github.TreeChange{{Path: "a.yaml", Content: []byte("<v> & 2\n")}, {Path: "gone.txt", Delete: true}})
		}, `{"base_tree":"base","tree":[{"path":"a.yaml","mode":"100644","type":"blob","content":"<v> & 2\n"},{"path":"gone.txt","sha":null}]}`},
		{"release notes in Markdown travel as they are", func(c *Client) {
			c.CreateRelease(ctx, "octo", "demo", github.NewRelease{TagName: "v1", Body: "<!-- x --> a & b"})
		}, `{"tag_name":"v1","name":"","body":"<!-- x --> a & b","draft":false,"prerelease":false}`},
		{"tree: no changes is an empty list", func(c *Client) { c.CreateTree(ctx, "octo", "demo", "", nil) },
			`{"tree":[]}`},
		{"commit", func(c *Client) { c.CreateCommit(ctx, "octo", "demo", "msg", "tree", []string{"p1", "p2"}) },
			`{"message":"msg","tree":"tree","parents":["p1","p2"]}`},
		{"root commit", func(c *Client) { c.CreateCommit(ctx, "octo", "demo", "", "tree", nil) },
			`{"message":"","tree":"tree"}`},
		{"branch", func(c *Client) { c.CreateBranch(ctx, "octo", "demo", "automation/x", "abc") },
			`{"ref":"refs/heads/automation/x","sha":"abc"}`},
		{"move without force says so", func(c *Client) { c.UpdateBranch(ctx, "octo", "demo", "main", "abc", false) },
			`{"sha":"abc","force":false}`},
		{"release with defaults", func(c *Client) { c.CreateRelease(ctx, "octo", "demo", github.NewRelease{TagName: "v1"}) },
			`{"tag_name":"v1","name":"","body":"","draft":false,"prerelease":false}`},
		{"release with make_latest as GitHub's string enum", func(c *Client) {
			c.CreateRelease(ctx, "octo", "demo", github.NewRelease{TagName: "v1", TargetCommitish: "abc", Name: "n", Body: "b", Draft: true, Prerelease: true, MakeLatest: "legacy"})
		}, `{"tag_name":"v1","target_commitish":"abc","name":"n","body":"b","draft":true,"prerelease":true,"make_latest":"legacy"}`},
		{"release edit sends only what changes", func(c *Client) {
			c.EditRelease(ctx, "octo", "demo", 7, github.ReleaseEdit{Body: ptr(""), Draft: ptr(false), MakeLatest: "false"})
		}, `{"body":"","draft":false,"make_latest":"false"}`},
		{"pull request", func(c *Client) {
			c.CreatePullRequest(ctx, "octo", "demo", github.NewPullRequest{Title: "t", Body: "b", Head: "automation/x", Base: "main"})
		}, `{"title":"t","body":"b","head":"automation/x","base":"main"}`},
		{"pull request edit", func(c *Client) {
			c.EditPullRequest(ctx, "octo", "demo", 7, github.PullRequestEdit{State: ptr("closed")})
		},
			`{"state":"closed"}`},
		{"notes with GitHub's choice of the previous release", func(c *Client) { c.GenerateNotes(ctx, "octo", "demo", github.NotesRequest{TagName: "v2"}) },
			`{"tag_name":"v2"}`},
		{"notes with a range", func(c *Client) {
			c.GenerateNotes(ctx, "octo", "demo", github.NotesRequest{TagName: "v2", PreviousTagName: "v1", TargetCommitish: "abc"})
		}, `{"tag_name":"v2","previous_tag_name":"v1","target_commitish":"abc"}`},
		{"delete has no body", func(c *Client) { c.DeleteRelease(ctx, "octo", "demo", 7) }, ""},
		{"read has no body", func(c *Client) { c.Releases(ctx, "octo", "demo") }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, s := cannedClient(t, 200, `{}`)
			tt.op(c)
			seen := s.requests()
			if len(seen) != 1 {
				t.Fatalf("%d requests, want 1", len(seen))
			}
			r := seen[0]
			for k, want := range map[string]string{
				"Accept": "application/vnd.github.v3+json", "X-Github-Api-Version": "2022-11-28", "Authorization": "Bearer " + token,
			} {
				if got := r.header.Get(k); got != want {
					t.Errorf("%s: %q, want %q", k, got, want)
				}
			}
			if tt.wantBody == "" {
				if r.body != "" || r.header.Get("Content-Type") != "" {
					t.Errorf("sent a body %q (%s)", r.body, r.header.Get("Content-Type"))
				}
				return
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			var got, want any
			if err := json.Unmarshal([]byte(r.body), &got); err != nil {
				t.Fatalf("body %q: %v", r.body, err)
			}
			if err := json.Unmarshal([]byte(tt.wantBody), &want); err != nil {
				t.Fatal(err)
			}
			if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
				t.Errorf("body %s\nwant %s", g, w)
			}
			// go-github's tree entries marshal themselves with "<" and "&" as \u003c and
			// \u0026, the same JSON value (compared above); Markdown bodies travel as they are.
			htmlEscapedOK := strings.HasSuffix(r.path, "/git/trees")
			if !htmlEscapedOK && (strings.Contains(r.body, `\u003c`) || strings.Contains(r.body, `\u0026`)) {
				t.Errorf("HTML-escaped body %s", r.body)
			}
		})
	}
}

// mustJSON renders a decoded JSON value canonically (maps sorted by key).
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRefWritesWithoutSHAAreNotSent(t *testing.T) {
	c, s := cannedClient(t, 200, `{}`)
	if err := c.CreateBranch(context.Background(), "octo", "demo", "x", ""); err == nil {
		t.Error("CreateBranch without a sha succeeded")
	}
	if err := c.UpdateBranch(context.Background(), "octo", "demo", "x", "", true); err == nil {
		t.Error("UpdateBranch without a sha succeeded")
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestCancelledRequestReportsTheContext(t *testing.T) {
	c, _ := cannedClient(t, 200, `[]`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Releases(ctx, "octo", "demo")
	if !errors.Is(err, context.Canceled) || github.OutcomeUnknown(err) {
		t.Errorf("err = %v, want context.Canceled and a known outcome", err)
	}
}
