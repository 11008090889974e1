package githubsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
)

// expectMismatches takes the disagreements the server recorded so far and fails unless
// they are exactly the wanted ones (each a prefix of one mismatch's text), so that a test
// that calls the simulator off GitHub's description on purpose says so.
func expectMismatches(t *testing.T, s *Server, want ...string) {
	t.Helper()
	if s.contract == nil {
		t.Fatal("the simulator runs without GitHub's API description")
	}
	var got []string
	for _, m := range s.contract.take() {
		got = append(got, m.String())
	}
	for _, w := range want {
		i := slices.IndexFunc(got, func(g string) bool { return strings.HasPrefix(g, w) })
		if i < 0 {
			t.Errorf("no mismatch %q among %q", w, got)
			continue
		}
		got = slices.Delete(got, i, i+1)
	}
	for _, g := range got {
		t.Errorf("unexpected mismatch: %s", g)
	}
}

func TestDescriptionMatchesTheMostSpecificPath(t *testing.T) {
	c := testContract(t)
	tests := []struct {
		method, path string
		want         string            // the description's path template
		params       map[string]string // path parameters, decoded
	}{
		{"GET", "/repos/o/r/releases/latest", "/repos/{owner}/{repo}/releases/latest", map[string]string{"owner": "o", "repo": "r"}},
		{"GET", "/repos/o/r/releases/12", "/repos/{owner}/{repo}/releases/{release_id}", map[string]string{"release_id": "12"}},
		// x-multi-segment parameters span slashes.
		{"GET", "/repos/o/r/git/ref/heads/feature/x", "/repos/{owner}/{repo}/git/ref/{ref}", map[string]string{"ref": "heads/feature/x"}},
		{"PATCH", "/repos/o/r/git/refs/heads/main", "/repos/{owner}/{repo}/git/refs/{ref}", map[string]string{"ref": "heads/main"}},
		{"GET", "/repos/o/r/contents/docs/a%20b.md", "/repos/{owner}/{repo}/contents/{path}", map[string]string{"path": "docs/a b.md"}},
		// A branch name with a slash arrives escaped, as go-github sends it.
		{"GET", "/repos/o/r/compare/main...automation%2Fx", "/repos/{owner}/{repo}/compare/{base}...{head}", map[string]string{"base": "main", "head": "automation/x"}},
		{"GET", "/repos/o/r/compare/main...automation/x", "/repos/{owner}/{repo}/compare/{basehead}", map[string]string{"basehead": "main...automation/x"}},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			route, params, err := c.desc.match(tt.method, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if route.Path != tt.want || route.Operation == nil {
				t.Fatalf("matched %s, want %s", route.Path, tt.want)
			}
			for k, v := range tt.params {
				if params[k] != v {
					t.Errorf("parameter %s = %q, want %q", k, params[k], v)
				}
			}
		})
	}
	if _, _, err := c.desc.match("GET", "/nope"); !errors.Is(err, errNoOperation) {
		t.Errorf("/nope: %v, want %v", err, errNoOperation)
	}
	if _, _, err := c.desc.match("DELETE", "/repos/o/r/compare/a...b"); !errors.Is(err, errNoMethod) {
		t.Errorf("DELETE compare: %v, want %v", err, errNoMethod)
	}
}

// exchangeCase is one request and answer held to the description.
type exchangeCase struct {
	name        string
	method      string
	path        string // with the query
	header      map[string]string
	reqBody     string
	status      int
	respBody    string
	respHeader  map[string]string
	protocol    bool
	wantMatches []string // in the text of the mismatches recorded; none for a valid exchange
}

const (
	gitRefBody = `{"ref":"refs/heads/main","node_id":"x","url":"https://api.github.com/repos/o/r/git/refs/heads/main",` +
		`"object":{"type":"commit","sha":"aa218f56b14c9653891f9e74264a383fa43fefbd","url":"https://api.github.com/repos/o/r/git/commits/aa218f56b14c9653891f9e74264a383fa43fefbd"}}`
	notFoundBody = `{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}`
)

func TestContractFindsWhatDisagrees(t *testing.T) {
	c := testContract(t)
	jsonCT := map[string]string{"Content-Type": "application/json"}
	tests := []exchangeCase{
		{name: "a valid read", method: "GET", path: "/repos/o/r/git/ref/heads/main", status: 200, respBody: gitRefBody},
		{name: "no such path", method: "GET", path: "/nope", status: 404, respBody: notFoundBody,
			wantMatches: []string{"GET /nope (no operation): request: no path of GitHub's API description matches"}},
		{name: "no such method", method: "PUT", path: "/repos/o/r/releases/latest", status: 404, respBody: notFoundBody,
			wantMatches: []string{"has no operation for this method (/repos/{owner}/{repo}/releases/latest has GET)"}},
		{name: "a query parameter the operation lacks", method: "GET", path: "/repos/o/r/git/ref/heads/main?per_page=5", status: 200, respBody: gitRefBody,
			wantMatches: []string{`request: query parameter "per_page" is not a parameter of this operation`}},
		{name: "a query parameter out of its enum", method: "GET", path: "/repos/o/r/pulls?state=merged", status: 200, respBody: `[]`,
			wantMatches: []string{`request: parameter "state" in query: /: value is not one of the allowed values`}},
		{name: "a body without a required field", method: "POST", path: "/repos/o/r/git/refs", header: jsonCT, reqBody: `{"sha":"aa218f56b14c9653891f9e74264a383fa43fefbd"}`,
			status: 201, respBody: gitRefBody,
			wantMatches: []string{"request: request body: doesn't match schema: /: missing required ref"}},
		{name: "a body without its content type", method: "POST", path: "/repos/o/r/git/refs", reqBody: `{"ref":"refs/heads/x","sha":"aa218f56b14c9653891f9e74264a383fa43fefbd"}`,
			status: 201, respBody: gitRefBody,
			wantMatches: []string{`header Content-Type has unexpected value ""`}},
		{name: "a body the operation takes none of", method: "GET", path: "/repos/o/r/git/ref/heads/main", header: jsonCT, reqBody: `{}`, status: 200, respBody: gitRefBody,
			wantMatches: []string{"request body"}},
		{name: "a status the operation does not list", method: "POST", path: "/repos/o/r/git/refs", header: jsonCT,
			reqBody: `{"ref":"refs/heads/x","sha":"aa218f56b14c9653891f9e74264a383fa43fefbd"}`, status: 200, respBody: gitRefBody,
			wantMatches: []string{"response 200: status is not one the description lists for this operation"}},
		{name: "an answer of the wrong type", method: "GET", path: "/repos/o/r/git/ref/heads/main", status: 200,
			respBody:    strings.Replace(gitRefBody, `"ref":"refs/heads/main"`, `"ref":7`, 1),
			wantMatches: []string{"response 200: response body doesn't match schema", "/ref: "}},
		{name: "an answer without a required field", method: "GET", path: "/repos/o/r/git/ref/heads/main", status: 200,
			respBody:    strings.Replace(gitRefBody, `"node_id":"x",`, ``, 1),
			wantMatches: []string{"/: missing required node_id"}},
		{name: "a release as the simulator writes it", method: "GET", path: "/repos/o/r/releases/12", status: 200,
			respBody: releaseWith(t, func(map[string]any) {})},
		{name: "a date that is not RFC 3339", method: "GET", path: "/repos/o/r/releases/12", status: 200,
			respBody:    releaseWith(t, func(m map[string]any) { m["created_at"] = "2025-01-01 00:00" }),
			wantMatches: []string{"/created_at: "}},
		{name: "not found where the operation lists no 404", method: "GET", path: "/repos/o/r/releases/12", status: 404, respBody: notFoundBody},
		{name: "a not-found body that is not GitHub's", method: "GET", path: "/repos/o/r/releases/12", status: 404, respBody: `{"message":404}`,
			wantMatches: []string{"response 404: body does not match basic-error"}},
		{name: "a conditional read answered 304", method: "GET", path: "/repos/o/r/git/ref/heads/main", header: map[string]string{"If-None-Match": `W/"x"`}, status: 304},
		{name: "304 to a read that was not conditional", method: "GET", path: "/repos/o/r/git/ref/heads/main", status: 304,
			wantMatches: []string{"response 304: status is not one the description lists"}},
		{name: "bad credentials", method: "GET", path: "/repos/o/r/git/ref/heads/main", status: 401, protocol: true,
			respBody: `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}`},
		{name: "a 409 the operation does not list", method: "GET", path: "/repos/o/r/releases/12", status: 409, respBody: notFoundBody,
			wantMatches: []string{"response 409: status is not one the description lists"}},
		{name: "a 422 the description leaves out", method: "PATCH", path: "/repos/o/r/releases/12", header: jsonCT, reqBody: `{"draft":false}`, status: 422,
			respBody: `{"message":"Validation Failed","errors":[{"resource":"Release","code":"already_exists","field":"tag_name"}],"documentation_url":"https://docs.github.com/rest","status":"422"}`},
		{name: "a classic token's scopes", method: "GET", path: "/repos/o/r/git/ref/heads/main", status: 200, respBody: gitRefBody,
			respHeader: map[string]string{"X-OAuth-Scopes": "repo, workflow, read:org"}},
		{name: "a classic token without scopes", method: "GET", path: "/repos/o/r/git/ref/heads/main", status: 200, respBody: gitRefBody,
			respHeader: map[string]string{"X-OAuth-Scopes": ""}},
		{name: "a scope GitHub does not document", method: "GET", path: "/repos/o/r/git/ref/heads/main", status: 200, respBody: gitRefBody,
			respHeader:  map[string]string{"X-OAuth-Scopes": "repo, contents:write"},
			wantMatches: []string{`response 200: X-OAuth-Scopes: "contents:write" is no scope GitHub documents`}},
		{name: "the permissions a refused write needs", method: "POST", path: "/repos/o/r/git/refs", header: jsonCT, protocol: true,
			reqBody: `{"ref":"refs/heads/x","sha":"aa218f56b14c9653891f9e74264a383fa43fefbd"}`, status: 403,
			respBody:   `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest","status":"403"}`,
			respHeader: map[string]string{"X-Accepted-GitHub-Permissions": "contents=write; repository_projects=write,workflows=write"}},
		{name: "a permission the description does not have", method: "POST", path: "/repos/o/r/git/refs", header: jsonCT, protocol: true,
			reqBody: `{"ref":"refs/heads/x","sha":"aa218f56b14c9653891f9e74264a383fa43fefbd"}`, status: 403,
			respBody:    `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest","status":"403"}`,
			respHeader:  map[string]string{"X-Accepted-GitHub-Permissions": "code=write"},
			wantMatches: []string{`X-Accepted-GitHub-Permissions: "code" is no permission of app-permissions`}},
		{name: "a level the permission does not have", method: "POST", path: "/repos/o/r/git/refs", header: jsonCT, protocol: true,
			reqBody: `{"ref":"refs/heads/x","sha":"aa218f56b14c9653891f9e74264a383fa43fefbd"}`, status: 403,
			respBody:    `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest","status":"403"}`,
			respHeader:  map[string]string{"X-Accepted-GitHub-Permissions": "contents=admin"},
			wantMatches: []string{`X-Accepted-GitHub-Permissions: "admin" is no level of contents`}},
		{name: "a permission that is not name=level", method: "POST", path: "/repos/o/r/git/refs", header: jsonCT, protocol: true,
			reqBody: `{"ref":"refs/heads/x","sha":"aa218f56b14c9653891f9e74264a383fa43fefbd"}`, status: 403,
			respBody:    `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest","status":"403"}`,
			respHeader:  map[string]string{"X-Accepted-GitHub-Permissions": "contents"},
			wantMatches: []string{`X-Accepted-GitHub-Permissions: "contents" is not name=level`}},
		{name: "a 422 elsewhere", method: "GET", path: "/repos/o/r/releases/12", status: 422,
			respBody:    `{"message":"Validation Failed","documentation_url":"https://docs.github.com/rest","status":"422"}`,
			wantMatches: []string{"response 422: status is not one the description lists"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.take()
			runExchange(t, c, tt)
			got := c.take()
			if (len(got) == 0) != (len(tt.wantMatches) == 0) {
				t.Fatalf("mismatches %q, want %q", got, tt.wantMatches)
			}
			text := ""
			for _, m := range got {
				text += m.String() + "\n"
			}
			for _, w := range tt.wantMatches {
				if !strings.Contains(text, w) {
					t.Errorf("mismatches %q lack %q", text, w)
				}
			}
		})
	}
}

// TestMismatchFailsTheTest runs a simulator under a stand-in test and checks that a
// request off GitHub's description fails that test when it ends, naming the request.
func TestMismatchFailsTheTest(t *testing.T) {
	for _, tc := range []struct {
		path string
		fail bool
	}{{"/repos/octo/demo/releases", false}, {"/repos/octo/demo/no-such-resource", true}} {
		t.Run(tc.path, func(t *testing.T) {
			inner := &recordingTB{TB: t}
			s := New(inner)
			s.AddToken(testToken, Token{})
			s.AddRepo("octo", "demo")
			resp := get(t, s, http.MethodGet, tc.path, nil, "", nil)
			resp.Body.Close()
			inner.finish()
			failed := strings.Join(inner.errors, "\n")
			if tc.fail != (failed != "") {
				t.Fatalf("failed = %q, want a failure: %v", failed, tc.fail)
			}
			if tc.fail && !strings.Contains(failed, "GET "+tc.path+" (no operation)") {
				t.Errorf("the failure does not name the request: %s", failed)
			}
		})
	}
}

// recordingTB is a test that records its errors and runs its cleanups when told.
type recordingTB struct {
	testing.TB
	errors   []string
	cleanups []func()
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recordingTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recordingTB) finish() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func testContract(t *testing.T) *contract {
	t.Helper()
	c := newContract(t)
	if c == nil {
		t.Skip("GitHub's API description is absent beside this checkout (see the log)")
	}
	return c
}

// releaseWith is a release answer as the simulator writes it, changed by edit.
func releaseWith(t *testing.T, edit func(map[string]any)) string {
	t.Helper()
	s, repo := newRepo(t, true)
	sha := repo.CommitOnBranch("main", "init", map[string]string{"a": "1"})
	id := repo.AddRelease(Release{TagName: "v1.0.0", TargetCommitish: sha})
	var body map[string]any
	resp := get(t, s, http.MethodGet, fmt.Sprintf("/repos/octo/demo/releases/%d", id), nil, "", &body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("release: %d", resp.StatusCode)
	}
	edit(body)
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runExchange sends the case's request through the check with its answer.
func runExchange(t *testing.T, c *contract, tt exchangeCase) {
	t.Helper()
	r := httptest.NewRequest(tt.method, "http://sim"+tt.path, strings.NewReader(tt.reqBody))
	for k, v := range tt.header {
		r.Header.Set(k, v)
	}
	header := http.Header{}
	if tt.respBody != "" {
		header.Set("Content-Type", "application/json; charset=utf-8")
	}
	for k, v := range tt.respHeader {
		header.Set(k, v)
	}
	c.check(r, []byte(tt.reqBody), tt.status, header, []byte(tt.respBody), tt.protocol)
}

// BenchmarkDescriptionIndex measures what each test process pays once: reading GitHub's
// description and indexing its paths.
func BenchmarkDescriptionIndex(b *testing.B) {
	file, verdict, why := locateDescription()
	if verdict != corpus.Use {
		b.Skip(why)
	}
	for b.Loop() {
		if _, err := readDescription(file); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFirstOperation measures decoding one operation with the components it refers
// to (pulls: the largest shapes the simulator serves), paid once per operation a process
// reaches.
func BenchmarkFirstOperation(b *testing.B) {
	file, verdict, why := locateDescription()
	if verdict != corpus.Use {
		b.Skip(why)
	}
	d, err := githubDescription(file)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := d.subset(map[string]json.RawMessage{"/repos/{owner}/{repo}/pulls": d.paths["/repos/{owner}/{repo}/pulls"]}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckExchange measures checking one request and its answer once the operation
// is loaded: a full repository, the simulator's largest single answer.
func BenchmarkCheckExchange(b *testing.B) {
	c := newContract(b)
	if c == nil {
		b.Skip("GitHub's API description is absent")
	}
	s := New(b)
	s.AddToken(testToken, Token{})
	repo := s.AddRepo("octo", "demo")
	body, err := json.Marshal(s.repository(repo))
	if err != nil {
		b.Fatal(err)
	}
	header := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	for b.Loop() {
		r := httptest.NewRequest(http.MethodGet, "http://sim/repos/octo/demo", nil)
		c.check(r, nil, http.StatusOK, header, body, false)
	}
	if ms := c.take(); len(ms) > 0 {
		b.Fatalf("mismatches: %v", ms)
	}
}
