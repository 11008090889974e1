package githubsim

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

const testToken = "sim-test-token"

// get sends one authenticated request and decodes a JSON body (if any) into out.
func get(t *testing.T, s *Server, method, path string, header http.Header, body string, out any) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: decoding %q: %v", method, path, data, err)
		}
	}
	return resp
}

func newRepo(t *testing.T, push bool) (*Server, *Repo) {
	s := New(t)
	s.AddToken(testToken, Token{PushAccess: push})
	return s, s.AddRepo("octo", "demo")
}

func TestReleasesPaginationLinks(t *testing.T) {
	s, repo := newRepo(t, false)
	for i := range 250 {
		repo.AddRelease(Release{TagName: fmt.Sprintf("v0.%d.0", i)})
	}
	repo.AddRelease(Release{TagName: "v9.9.9", Draft: true})
	base := s.URL + "/repos/octo/demo/releases?per_page=100&page="
	tests := []struct {
		query    string
		wantLen  int
		wantLink string
		wantTop  string
	}{
		{"?per_page=100", 100, `<` + base + `2>; rel="next", <` + base + `3>; rel="last"`, "v0.249.0"},
		{"?per_page=100&page=2", 100, `<` + base + `1>; rel="prev", <` + base + `3>; rel="next", <` + base + `3>; rel="last", <` + base + `1>; rel="first"`, "v0.149.0"},
		{"?per_page=100&page=3", 50, `<` + base + `2>; rel="prev", <` + base + `1>; rel="first"`, "v0.49.0"},
		{"", 30, `<` + s.URL + `/repos/octo/demo/releases?page=2>; rel="next", <` + s.URL + `/repos/octo/demo/releases?page=9>; rel="last"`, "v0.249.0"},
		{"?per_page=500", 100, `<` + s.URL + `/repos/octo/demo/releases?per_page=500&page=2>; rel="next", <` + s.URL + `/repos/octo/demo/releases?per_page=500&page=3>; rel="last"`, "v0.249.0"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var page []struct {
				TagName string `json:"tag_name"`
				Draft   bool   `json:"draft"`
			}
			resp := get(t, s, "GET", "/repos/octo/demo/releases"+tt.query, nil, "", &page)
			if len(page) != tt.wantLen {
				t.Errorf("len = %d, want %d", len(page), tt.wantLen)
			}
			if got := resp.Header.Get("Link"); got != tt.wantLink {
				t.Errorf("Link =\n%s\nwant\n%s", got, tt.wantLink)
			}
			if len(page) > 0 && page[0].TagName != tt.wantTop {
				t.Errorf("first = %s, want %s (newest first)", page[0].TagName, tt.wantTop)
			}
			for _, r := range page {
				if r.Draft {
					t.Errorf("draft %s listed to a token without push access", r.TagName)
				}
			}
		})
	}
}

func TestDraftVisibility(t *testing.T) {
	for _, push := range []bool{false, true} {
		t.Run(fmt.Sprintf("push=%v", push), func(t *testing.T) {
			s, repo := newRepo(t, push)
			repo.AddRelease(Release{TagName: "v1.0.0", Draft: true})
			var list []map[string]any
			get(t, s, "GET", "/repos/octo/demo/releases", nil, "", &list)
			if got, want := len(list), map[bool]int{false: 0, true: 1}[push]; got != want {
				t.Errorf("listed %d releases, want %d", got, want)
			}
			if resp := get(t, s, "GET", "/repos/octo/demo/releases/tags/v1.0.0", nil, "", nil); resp.StatusCode != 404 {
				t.Errorf("draft by tag: status %d, want 404 for everyone", resp.StatusCode)
			}
		})
	}
}

func TestETagNotModifiedKeepsRateLimit(t *testing.T) {
	s, repo := newRepo(t, false)
	repo.CommitOnBranch("main", "init", map[string]string{"README.md": "hi\n"})
	path := "/repos/octo/demo/contents/README.md?ref=main"
	first := get(t, s, "GET", path, nil, "", nil)
	etag := first.Header.Get("ETag")
	if !strings.HasPrefix(etag, `W/"`) {
		t.Fatalf("ETag = %q, want a weak ETag", etag)
	}
	if again := get(t, s, "GET", path, nil, "", nil); again.Header.Get("ETag") != etag {
		t.Errorf("ETag changed for unchanged content: %q then %q", etag, again.Header.Get("ETag"))
	}
	before := s.RateLimit(testToken).Remaining
	resp := get(t, s, "GET", path, http.Header{"If-None-Match": {etag}}, "", nil)
	if resp.StatusCode != http.StatusNotModified {
		t.Fatalf("status %d, want 304", resp.StatusCode)
	}
	if resp.Header.Get("X-RateLimit-Remaining") != fmt.Sprint(before) || s.RateLimit(testToken).Remaining != before {
		t.Errorf("a 304 consumed rate limit: %d before, header %s, %d after",
			before, resp.Header.Get("X-RateLimit-Remaining"), s.RateLimit(testToken).Remaining)
	}
	log := s.Requests()
	if last := log[len(log)-1]; !last.Conditional || !last.NotModified {
		t.Errorf("log entry %+v, want conditional and not modified", last)
	}
	// A changed file changes the ETag, so the conditional request gets the new content.
	repo.CommitOnBranch("main", "edit", map[string]string{"README.md": "hello\n"})
	if resp := get(t, s, "GET", path, http.Header{"If-None-Match": {etag}}, "", nil); resp.StatusCode != 200 {
		t.Errorf("after a change: status %d, want 200", resp.StatusCode)
	}
}

func TestErrorShapesAndAuth(t *testing.T) {
	s, _ := newRepo(t, false)
	tests := []struct {
		name, method, path, auth string
		status                   int
		message                  string
	}{
		{"missing repo", "GET", "/repos/octo/none/releases", "Bearer " + testToken, 404, "Not Found"},
		{"unknown route", "GET", "/nope", "token " + testToken, 404, "Not Found"},
		{"missing file", "GET", "/repos/octo/demo/contents/x", "token " + testToken, 404, "No commit found for the ref main"},
		{"no auth", "GET", "/repos/octo/demo/releases", "", 401, "Requires authentication"},
		{"bad token", "GET", "/repos/octo/demo/releases", "Bearer nope", 401, "Bad credentials"},
		{"read-only write", "POST", "/repos/octo/demo/releases", "Bearer " + testToken, 403, "Resource not accessible by integration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var payload io.Reader
			if tt.method == http.MethodPost {
				payload = strings.NewReader(`{"tag_name":"v1"}`)
			}
			req, _ := http.NewRequest(tt.method, s.URL+tt.path, payload)
			if payload != nil {
				req.Header.Set("Content-Type", "application/json")
			}
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body apiError
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status || body.Message != tt.message ||
				!strings.HasPrefix(body.DocumentationURL, "https://docs.github.com/") || body.Status != fmt.Sprint(tt.status) {
				t.Errorf("got %d %+v, want %d %q", resp.StatusCode, body, tt.status, tt.message)
			}
		})
	}
	// /nope is no path of GitHub's API: the check reports it, as this test expects.
	expectMismatches(t, s, "GET /nope (no operation): request: "+errNoOperation.Error())
}

func TestGitDataAndCompare(t *testing.T) {
	s, repo := newRepo(t, false)
	root := repo.CommitOnBranch("dev", "root", map[string]string{"CITATION.cff": "version: 1\n"})
	mid := repo.CommitOnBranch("dev", "mid", nil)
	repo.SetBranch("main", mid)
	tip := repo.CommitOnBranch("dev", "tip", nil)
	side := repo.AddCommit("side", []string{root}, nil)
	objSHA := repo.AnnotatedTag("v1.0.0", mid, Unverified("unknown_key"))
	repo.LightweightTag("light", root)

	var ref struct {
		Object gitObject `json:"object"`
	}
	get(t, s, "GET", "/repos/octo/demo/git/ref/tags/v1.0.0", nil, "", &ref)
	if ref.Object.Type != "tag" || ref.Object.SHA != objSHA {
		t.Errorf("annotated ref object = %+v", ref.Object)
	}
	get(t, s, "GET", "/repos/octo/demo/git/ref/tags/light", nil, "", &ref)
	if ref.Object.Type != "commit" || ref.Object.SHA != root {
		t.Errorf("lightweight ref object = %+v", ref.Object)
	}
	var tag struct {
		Object       gitObject `json:"object"`
		Verification struct {
			Verified  bool    `json:"verified"`
			Reason    string  `json:"reason"`
			Signature *string `json:"signature"`
		} `json:"verification"`
	}
	get(t, s, "GET", "/repos/octo/demo/git/tags/"+objSHA, nil, "", &tag)
	if tag.Object.SHA != mid || tag.Verification.Verified || tag.Verification.Reason != "unknown_key" || tag.Verification.Signature == nil {
		t.Errorf("tag object = %+v", tag)
	}

	tests := []struct {
		base, head   string
		status       string
		ahead, behin int
	}{
		{mid, "main", "identical", 0, 0},
		{root, "main", "ahead", 1, 0},
		{tip, "main", "behind", 0, 1},
		{side, "main", "diverged", 1, 1},
		{"v1.0.0", "dev", "ahead", 1, 0},
	}
	for _, tt := range tests {
		var cmp struct {
			Status    string `json:"status"`
			AheadBy   int    `json:"ahead_by"`
			BehindBy  int    `json:"behind_by"`
			MergeBase struct {
				SHA string `json:"sha"`
			} `json:"merge_base_commit"`
		}
		get(t, s, "GET", "/repos/octo/demo/compare/"+tt.base+"..."+tt.head, nil, "", &cmp)
		if cmp.Status != tt.status || cmp.AheadBy != tt.ahead || cmp.BehindBy != tt.behin {
			t.Errorf("compare %.7s...%s = %+v, want %s +%d -%d", tt.base, tt.head, cmp, tt.status, tt.ahead, tt.behin)
		}
	}

	var file struct {
		Encoding, Content string
	}
	get(t, s, "GET", "/repos/octo/demo/contents/CITATION.cff?ref="+tip, nil, "", &file)
	if got, err := base64.StdEncoding.DecodeString(file.Content); err != nil || string(got) != "version: 1\n" || file.Encoding != "base64" {
		t.Errorf("contents = %q (%v), encoding %q", got, err, file.Encoding)
	}
}

func TestWorkflowRunsNewestFirstWithFilters(t *testing.T) {
	s, repo := newRepo(t, false)
	sha := repo.CommitOnBranch("dev", "c", nil)
	old := repo.AddWorkflowRun(WorkflowRun{Workflow: "ci.yml", Event: "push", HeadBranch: "dev", HeadSHA: sha, Conclusion: "failure"})
	newer := repo.AddWorkflowRun(WorkflowRun{Workflow: "ci.yml", Event: "push", HeadBranch: "dev", HeadSHA: sha, Status: "in_progress"})
	repo.AddWorkflowRun(WorkflowRun{Workflow: "ci.yml", Event: "pull_request", HeadBranch: "dev", HeadSHA: sha, Conclusion: "success"})
	repo.RerunWorkflowRun(old, "completed", "success")

	var out struct {
		TotalCount int `json:"total_count"`
		Runs       []struct {
			ID         int64   `json:"id"`
			Conclusion *string `json:"conclusion"`
			RunAttempt int     `json:"run_attempt"`
		} `json:"workflow_runs"`
	}
	get(t, s, "GET", "/repos/octo/demo/actions/workflows/ci.yml/runs?event=push&branch=dev&head_sha="+sha, nil, "", &out)
	if out.TotalCount != 2 || out.Runs[0].ID != newer || out.Runs[0].Conclusion != nil || out.Runs[1].RunAttempt != 2 {
		t.Errorf("runs = %+v", out)
	}
	if resp := get(t, s, "GET", "/repos/octo/demo/actions/workflows/nope.yml/runs", nil, "", nil); resp.StatusCode != 404 {
		t.Errorf("unknown workflow: %d, want 404", resp.StatusCode)
	}
}

// A run's jobs are its latest attempt's, paginated; a re-run's attempt lists its own.
func TestWorkflowRunJobs(t *testing.T) {
	s, repo := newRepo(t, false)
	sha := repo.CommitOnBranch("dev", "c", nil)
	run := repo.AddWorkflowRun(WorkflowRun{Workflow: "ci.yml", Event: "push", HeadBranch: "dev", HeadSHA: sha, Conclusion: "failure",
		Jobs: []WorkflowJob{{Name: "Lint", Conclusion: "failure"}, {Name: "CI passed", Conclusion: "failure"}, {Name: "Publish image (filer)", Conclusion: "skipped"}}})
	type jobs struct {
		TotalCount int `json:"total_count"`
		Jobs       []struct {
			ID         int64   `json:"id"`
			RunID      int64   `json:"run_id"`
			RunAttempt int     `json:"run_attempt"`
			Name       string  `json:"name"`
			Status     string  `json:"status"`
			Conclusion *string `json:"conclusion"`
			HTMLURL    string  `json:"html_url"`
		} `json:"jobs"`
	}
	var page1, page2 jobs
	resp := get(t, s, "GET", fmt.Sprintf("/repos/octo/demo/actions/runs/%d/jobs?filter=latest&per_page=2", run), nil, "", &page1)
	if page1.TotalCount != 3 || len(page1.Jobs) != 2 || page1.Jobs[0].Name != "Lint" || *page1.Jobs[0].Conclusion != "failure" ||
		page1.Jobs[0].RunID != run || page1.Jobs[0].Status != "completed" || !strings.Contains(page1.Jobs[0].HTMLURL, fmt.Sprintf("/actions/runs/%d/job/", run)) {
		t.Errorf("page 1 = %+v", page1)
	}
	if !strings.Contains(resp.Header.Get("Link"), `rel="next"`) {
		t.Errorf("page 1 has no next link: %q", resp.Header.Get("Link"))
	}
	get(t, s, "GET", fmt.Sprintf("/repos/octo/demo/actions/runs/%d/jobs?per_page=2&page=2", run), nil, "", &page2)
	if len(page2.Jobs) != 1 || page2.Jobs[0].Name != "Publish image (filer)" {
		t.Errorf("page 2 = %+v", page2)
	}

	repo.RerunWorkflowRun(run, "in_progress", "", WorkflowJob{Name: "Lint", Status: "in_progress"})
	var rerun jobs
	get(t, s, "GET", fmt.Sprintf("/repos/octo/demo/actions/runs/%d/jobs", run), nil, "", &rerun)
	if rerun.TotalCount != 1 || rerun.Jobs[0].Conclusion != nil || rerun.Jobs[0].Status != "in_progress" || rerun.Jobs[0].RunAttempt != 2 {
		t.Errorf("after a re-run = %+v", rerun)
	}
	if resp := get(t, s, "GET", "/repos/octo/demo/actions/runs/999999/jobs", nil, "", nil); resp.StatusCode != 404 {
		t.Errorf("unknown run: %d, want 404", resp.StatusCode)
	}
}

func TestCreateReleaseAndFaults(t *testing.T) {
	s, repo := newRepo(t, true)
	repo.CommitOnBranch("main", "c", nil)
	body := `{"tag_name":"v1.0.0","name":"v1.0.0","make_latest":"true"}`
	if resp := get(t, s, "POST", "/repos/octo/demo/releases", nil, body, nil); resp.StatusCode != 201 {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	var dup apiError
	if resp := get(t, s, "POST", "/repos/octo/demo/releases", nil, body, &dup); resp.StatusCode != 422 ||
		len(dup.Errors) != 1 || dup.Errors[0].Code != "already_exists" || dup.Errors[0].Field != "tag_name" {
		t.Errorf("duplicate: %d %+v", resp.StatusCode, dup)
	}

	s.InjectFault("POST", "/repos/*/*/releases", Fault{Kind: FaultStatus, Status: 502, Times: 1, AfterEffect: true})
	if resp := get(t, s, "POST", "/repos/octo/demo/releases", nil, `{"tag_name":"v1.1.0"}`, nil); resp.StatusCode != 502 {
		t.Errorf("faulted create: %d, want 502", resp.StatusCode)
	}
	if got := len(repo.Releases()); got != 3-1 {
		t.Errorf("after a lost response: %d releases, want 2 (the write took effect)", got)
	}
	s.InjectFault("GET", "/repos/*/*/releases", SecondaryRateLimit(1, 3*time.Second))
	resp := get(t, s, "GET", "/repos/octo/demo/releases", nil, "", nil)
	if resp.StatusCode != 403 || resp.Header.Get("Retry-After") != "3" {
		t.Errorf("secondary limit: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if resp := get(t, s, "GET", "/repos/octo/demo/releases", nil, "", nil); resp.StatusCode != 200 {
		t.Errorf("after the fault is used up: %d", resp.StatusCode)
	}
	if n := len(s.Writes()); n != 3 {
		t.Errorf("Writes() = %d, want 3", n)
	}
	if n := s.Count("GET", "/repos/*/*/releases"); n != 2 {
		t.Errorf("Count = %d, want 2", n)
	}
}

func TestPrimaryRateLimitWindow(t *testing.T) {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := start
	s := New(t, WithClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now }))
	s.AddToken(testToken, Token{Limit: 2})
	s.AddRepo("octo", "demo")
	for i, want := range []int{200, 200, 403} {
		resp := get(t, s, "GET", "/repos/octo/demo/releases", nil, "", nil)
		if resp.StatusCode != want {
			t.Errorf("request %d: %d, want %d", i, resp.StatusCode, want)
		}
		if want == 403 && (resp.Header.Get("X-RateLimit-Remaining") != "0" ||
			resp.Header.Get("X-RateLimit-Reset") != fmt.Sprint(start.Add(time.Hour).Unix())) {
			t.Errorf("exhausted headers: %v", resp.Header)
		}
	}
	mu.Lock()
	now = now.Add(time.Hour)
	mu.Unlock()
	if resp := get(t, s, "GET", "/repos/octo/demo/releases", nil, "", nil); resp.StatusCode != 200 {
		t.Errorf("after reset: %d", resp.StatusCode)
	}
}

func TestImportCommitKeepsTheGivenSHA(t *testing.T) {
	sim := New(t)
	repo := sim.AddRepo("o", "r")
	const first, second = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	repo.ImportCommit(first, "root", nil, map[string]string{"a.txt": "a"})
	repo.ImportCommit(second, "next", []string{first}, map[string]string{"b.txt": "b"})
	repo.SetBranch("main", second)
	if got := repo.Branch("main"); got != second {
		t.Fatalf("main = %s", got)
	}
	files := repo.Files(second)
	if files["a.txt"] != "a" || files["b.txt"] != "b" {
		t.Errorf("tree of the imported commit: %v", files)
	}
	if !repo.IsAncestor(first, second) {
		t.Error("the imported parent is not an ancestor")
	}
}

func TestAnonymousReads(t *testing.T) {
	for _, anonymous := range []bool{false, true} {
		var opts []Option
		if anonymous {
			opts = append(opts, WithAnonymousReads())
		}
		sim := New(t, opts...)
		sim.AddRepo("o", "r").CommitOnBranch("main", "root", map[string]string{"a": "a"})
		get, err := http.Get(sim.URL + "/repos/o/r/git/ref/heads/main")
		if err != nil {
			t.Fatal(err)
		}
		get.Body.Close()
		wantGet := http.StatusUnauthorized
		if anonymous {
			wantGet = http.StatusOK
			if l := get.Header.Get("X-RateLimit-Limit"); l != "60" {
				t.Errorf("anonymous limit %q, want 60", l)
			}
		}
		if get.StatusCode != wantGet {
			t.Errorf("anonymous=%t: GET answered %d, want %d", anonymous, get.StatusCode, wantGet)
		}
		post, err := http.Post(sim.URL+"/repos/o/r/releases", "application/json", strings.NewReader(`{"tag_name":"v1"}`))
		if err != nil {
			t.Fatal(err)
		}
		post.Body.Close()
		if post.StatusCode != http.StatusUnauthorized {
			t.Errorf("anonymous=%t: POST answered %d, want 401", anonymous, post.StatusCode)
		}
	}
}
