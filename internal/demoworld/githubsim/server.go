// Package githubsim is a stateful simulation of the parts of GitHub's REST API that
// Shipyard calls, for tests. It answers in GitHub's documented JSON shapes, with the
// protocol details clients depend on: token authentication, primary rate-limit headers,
// ETags and conditional requests (304), pagination Link headers, and GitHub's error bodies
// (404, 409, 422). Faults (5xx, secondary and primary rate limits, lost responses) can be
// injected per endpoint, and every request is logged so tests can count API calls.
//
// Every request and every answer is checked against GitHub's own REST API description
// (contract.go): a disagreement fails the test that started the simulator.
//
// State is seeded through exported methods (AddToken, AddRepo, Repo.CommitOnBranch,
// Repo.AnnotatedTag, Repo.AddWorkflowRun, Repo.AddRelease, ...). Endpoints live one
// resource per file (refs.go, tags.go, commits.go, contents.go, actions.go,
// releases.go); to add one, write a function returning []route in a new file and list
// it in routeGroups in routes.go.
package githubsim

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// docsBase prefixes the documentation_url of error bodies, as GitHub's do.
const docsBase = "https://docs.github.com/rest"

// Server is a running simulator. Its methods are safe for concurrent use.
type Server struct {
	// URL is the API base URL (no trailing slash), e.g. http://127.0.0.1:1234.
	URL string

	tb  testing.TB
	srv *httptest.Server
	mux *http.ServeMux

	mu         sync.Mutex
	now        func() time.Time
	repos      map[string]*Repo // key: lower-case "owner/name"; GitHub matches names case-insensitively
	tokens     map[string]*Token
	faults     []*faultRule
	log        []Request
	nextID     int64     // ids of seeded and created objects
	requestSeq int64     // X-GitHub-Request-Id values
	seedTime   time.Time // deterministic timestamps for seeded objects
	anonymous  *Token    // answers unauthenticated reads when set
	unchecked  bool      // serve without checking traffic against GitHub's API description
	contract   *contract // checks traffic against GitHub's API description; nil when unchecked
}

// Option configures a Server.
type Option func(*Server)

// WithClock sets the clock used for rate-limit windows and reset times, so tests can share
// one fake clock between the simulator and a client's retry sleeper.
func WithClock(now func() time.Time) Option {
	return func(s *Server) { s.now = now }
}

// WithAnonymousReads answers reads without an Authorization header, as GitHub does for
// public repositories, with GitHub's anonymous limit of 60 requests an hour and no write
// access.
func WithAnonymousReads() Option {
	return func(s *Server) {
		s.anonymous = &Token{Limit: 60, remaining: 60}
	}
}

// New starts a simulator that is closed when the test ends.
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := &Server{
		tb:       tb,
		mux:      http.NewServeMux(),
		now:      time.Now,
		repos:    map[string]*Repo{},
		tokens:   map[string]*Token{},
		nextID:   1000,
		seedTime: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	for _, o := range opts {
		o(s)
	}
	for _, group := range routeGroups {
		for _, rt := range group() {
			s.mux.HandleFunc(rt.method+" "+rt.pattern, s.serve(rt))
		}
	}
	// Unknown routes answer like GitHub: a JSON 404, whatever the method.
	s.mux.HandleFunc("/", s.serve(route{pattern: "", handle: func(*call) reply {
		return notFound("")
	}}))
	var handler http.Handler = s.mux
	if !s.unchecked {
		s.contract = newContract(tb)
	}
	if s.contract != nil {
		handler = s.contract.middleware(handler)
		// Registered before Close, so it runs after the last request was answered.
		tb.Cleanup(func() { s.contract.report(tb) })
	}
	s.srv = httptest.NewServer(handler)
	s.URL = s.srv.URL
	tb.Cleanup(s.srv.Close)
	return s
}

// Close stops the server before the test ends (it is otherwise closed by the test's cleanup).
func (s *Server) Close() { s.srv.Close() }

// Token is an access token the simulator accepts.
type Token struct {
	// PushAccess is a fine-grained or GitHub App token's grant of contents: write on every
	// repository it sees; without it the token reads only and, as on GitHub, draft releases
	// are hidden from it. A write needs it and a Role that may push (tokens.go). A classic
	// token (Scopes) has no such grant: its scopes say what it may write.
	PushAccess bool
	// Role is the role, on every repository, of the user the token acts for: read, triage,
	// write, maintain or admin. GitHub reports it in a repository's "permissions" whatever
	// the token itself was granted. "" is write for a classic token or one with PushAccess,
	// read otherwise.
	Role string
	// Scopes, when not nil, make the token a classic personal access token with these
	// OAuth scopes, which GitHub lists in X-OAuth-Scopes on every answer to it. It writes
	// with repo or public_repo (every simulated repository is public).
	Scopes []string
	// Repos, when not empty, are the only repositories (owner/name) the token can see:
	// GitHub answers 404 for a private repository a token has no access to.
	Repos []string
	// Limit is the primary rate limit per hour window (default 5000).
	Limit int
	// Lacks names fine-grained permissions the token does not have (administration,
	// environments, secrets, variables, actions, contents, attestations): the endpoints
	// that need one answer 403, as GitHub does (settings.go, attestations.go). A name with
	// a level, as X-Accepted-GitHub-Permissions writes it ("attestations=write"), takes
	// away that level only: the token still reads.
	Lacks []string

	remaining int
	used      int
	reset     time.Time
}

// AddToken registers a token value.
func (s *Server) AddToken(value string, t Token) {
	s.tb.Helper()
	if t.Scopes != nil && t.PushAccess {
		s.tb.Fatalf("githubsim: a classic token (Scopes) has no PushAccess: its scopes say what it may write")
	}
	if t.Role != "" && !slices.Contains(roles, t.Role) {
		s.tb.Fatalf("githubsim: role %q is none of %v", t.Role, roles)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.Limit <= 0 {
		t.Limit = 5000
	}
	t.remaining = t.Limit
	s.tokens[value] = &t
}

// RateLimit is a token's primary rate-limit state as GitHub reports it in headers.
type RateLimit struct {
	Limit, Remaining, Used int
	Reset                  time.Time
}

// RateLimit returns the current rate-limit state of a token.
func (s *Server) RateLimit(token string) RateLimit {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[token]
	if !ok {
		return RateLimit{}
	}
	s.refill(t)
	return RateLimit{Limit: t.Limit, Remaining: t.remaining, Used: t.used, Reset: t.reset}
}

// refill opens a new hour window once the previous one has ended.
func (s *Server) refill(t *Token) {
	now := s.now()
	if t.reset.IsZero() || !now.Before(t.reset) {
		t.remaining, t.used = t.Limit, 0
		t.reset = now.Add(time.Hour).Truncate(time.Second)
	}
}

// route is one endpoint: a ServeMux pattern (Go 1.22 syntax, without the method) and a
// handler that reads and changes state under the server's lock.
type route struct {
	method  string
	pattern string
	handle  func(c *call) reply
}

// call is what a handler sees of a request.
type call struct {
	s     *Server
	r     *http.Request
	token *Token
	repo  *Repo // set when the pattern has {owner} and {repo} and the repository exists
	body  []byte
}

// reply is a handler's answer; the server adds ETag, rate-limit and content headers.
type reply struct {
	status int
	body   any // marshalled to JSON; nil writes no body
	header http.Header
}

func okJSON(body any) reply { return reply{status: http.StatusOK, body: body} }

// apiError is GitHub's error body.
type apiError struct {
	Message          string       `json:"message"`
	Errors           []fieldError `json:"errors,omitempty"`
	DocumentationURL string       `json:"documentation_url"`
	Status           string       `json:"status"`
}

// fieldError is one entry of a 422's "errors" array.
type fieldError struct {
	Resource string `json:"resource"`
	Code     string `json:"code"`
	Field    string `json:"field"`
}

func errorReply(status int, message, docs string, errs ...fieldError) reply {
	return reply{status: status, body: apiError{
		Message:          message,
		Errors:           errs,
		DocumentationURL: docsBase + docs,
		Status:           strconv.Itoa(status),
	}}
}

func notFound(docs string) reply { return errorReply(http.StatusNotFound, "Not Found", docs) }

// validationFailed is the 422 GitHub answers for invalid or conflicting input.
func validationFailed(docs string, errs ...fieldError) reply {
	return errorReply(http.StatusUnprocessableEntity, "Validation Failed", docs, errs...)
}

// conflict is the 409 GitHub answers when the repository's state forbids a write.
func conflict(message, docs string) reply {
	return errorReply(http.StatusConflict, message, docs)
}

func (s *Server) serve(rt route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { s.handle(w, r, rt) }
}

// handle runs the protocol around every endpoint: log, authentication, faults, primary
// rate limit, repository lookup, the handler, then ETag/304 and headers.
func (s *Server) handle(w http.ResponseWriter, r *http.Request, rt route) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 10<<20))
	s.mu.Lock()
	defer s.mu.Unlock()

	entry := Request{
		Method:      r.Method,
		Path:        r.URL.Path,
		Query:       r.URL.RawQuery,
		Conditional: r.Header.Get("If-None-Match") != "",
	}
	defer func() { s.log = append(s.log, entry) }()
	s.requestSeq++
	w.Header().Set("X-GitHub-Request-Id", fmt.Sprintf("SIM:%d", s.requestSeq))

	tok, msg := s.authenticate(r)
	if tok == nil {
		markProtocolAnswer(r)
		entry.Status = s.write(w, r, nil, errorReply(http.StatusUnauthorized, msg, ""), false)
		return
	}
	s.refill(tok)

	fault := s.takeFault(r)
	if fault != nil && !fault.AfterEffect {
		markProtocolAnswer(r)
		entry.Fault = true
		entry.Status = s.write(w, r, tok, fault.reply(s, tok), false)
		return
	}
	if tok.remaining <= 0 {
		markProtocolAnswer(r)
		entry.Status = s.write(w, r, tok, primaryLimitReply(http.StatusForbidden, tok.Limit, tok.used, tok.reset), false)
		return
	}

	c := &call{s: s, r: r, token: tok, body: body}
	var rep reply
	if owner, name := r.PathValue("owner"), r.PathValue("repo"); owner != "" && name != "" {
		c.repo = s.repos[strings.ToLower(owner+"/"+name)]
		if c.repo != nil && len(tok.Repos) > 0 && !slices.ContainsFunc(tok.Repos, func(r string) bool { return strings.EqualFold(r, c.repo.FullName()) }) {
			c.repo = nil
		}
	}
	if c.repo == nil && strings.Contains(rt.pattern, "{repo}") {
		rep = notFound("")
	} else {
		rep = rt.handle(c)
		if isPermissionRefusal(rep) {
			markProtocolAnswer(r)
		}
	}
	if fault != nil {
		// The request took effect but its response is lost on the way back.
		markProtocolAnswer(r)
		entry.Fault = true
		entry.Status = s.write(w, r, tok, fault.reply(s, tok), false)
		return
	}
	entry.Status = s.write(w, r, tok, rep, true)
	entry.NotModified = entry.Status == http.StatusNotModified
}

// authenticate accepts "Authorization: Bearer <t>" or "token <t>" with a registered token.
func (s *Server) authenticate(r *http.Request) (*Token, string) {
	h := r.Header.Get("Authorization")
	if h == "" {
		if s.anonymous != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			return s.anonymous, ""
		}
		return nil, "Requires authentication"
	}
	scheme, value, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "bearer") && !strings.EqualFold(scheme, "token") {
		return nil, "Bad credentials"
	}
	t, ok := s.tokens[strings.TrimSpace(value)]
	if !ok {
		return nil, "Bad credentials"
	}
	return t, ""
}

// write renders a reply. Conditional GETs whose ETag still matches get a 304 with no body
// and, as GitHub documents, do not count against the rate limit.
func (s *Server) write(w http.ResponseWriter, r *http.Request, tok *Token, rep reply, counts bool) int {
	var data []byte
	if rep.body != nil {
		var err error
		data, err = json.Marshal(rep.body)
		if err != nil {
			rep = errorReply(http.StatusInternalServerError, "simulator: "+err.Error(), "")
			data, _ = json.Marshal(rep.body)
		}
		data = append(data, '\n')
	}
	h := w.Header()
	for k, vs := range rep.header {
		h[k] = vs
	}
	status := rep.status
	if r.Method == http.MethodGet && status == http.StatusOK {
		sum := sha256.Sum256(data)
		etag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
		h.Set("ETag", etag)
		if etagMatches(r.Header.Get("If-None-Match"), etag) {
			status = http.StatusNotModified
			counts = false
			data = nil
		}
	}
	setTokenHeaders(h, tok)
	if tok != nil {
		if counts {
			tok.remaining--
			tok.used++
		}
		if h.Get("X-RateLimit-Remaining") == "" {
			setRateHeaders(h, tok.Limit, tok.remaining, tok.used, tok.reset)
		}
	}
	if data != nil {
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(data)))
	}
	w.WriteHeader(status)
	if data != nil && r.Method != http.MethodHead {
		_, _ = io.Copy(w, bytes.NewReader(data))
	}
	return status
}

func setRateHeaders(h http.Header, limit, remaining, used int, reset time.Time) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(remaining, 0)))
	h.Set("X-RateLimit-Used", strconv.Itoa(used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
}

// primaryLimitReply is GitHub's answer once a token's hourly budget is spent.
func primaryLimitReply(status, limit, used int, reset time.Time) reply {
	rep := errorReply(status,
		"API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please include the request ID.",
		"/overview/rate-limits-for-the-rest-api")
	rep.header = http.Header{}
	setRateHeaders(rep.header, limit, 0, used, reset)
	return rep
}

// etagMatches applies the weak comparison If-None-Match uses (RFC 9110, 13.1.2).
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	want := strings.TrimPrefix(etag, "W/")
	for cand := range strings.SplitSeq(header, ",") {
		cand = strings.TrimSpace(cand)
		if cand == "*" || strings.TrimPrefix(cand, "W/") == want {
			return true
		}
	}
	return false
}

// stamp returns the next deterministic timestamp for a seeded object, a minute apart.
func (s *Server) stamp() time.Time {
	s.seedTime = s.seedTime.Add(time.Minute)
	return s.seedTime
}

func (s *Server) newID() int64 {
	s.nextID++
	return s.nextID
}

// timestamp formats times as GitHub does (UTC, seconds).
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }
