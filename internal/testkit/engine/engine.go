package engine

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"dagger.io/dagger"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/validator"
)

// Engine is an in-process stand-in for a Dagger engine session.
type Engine struct {
	t      testing.TB
	cfg    config
	schema *ast.Schema
	srv    *httptest.Server
	token  string
	hostWD string
	closed chan struct{}

	mu          sync.Mutex
	errs        []error
	plaintext   map[string]string // setSecret values by name; never part of IDs or records
	execRules   []ExecRule
	exportRules []ExportRule
	fileRules   []FileRule
	dirRules    []DirRule
	leafRules   []FieldRule
	unexpected  []Exec          // execs no rule matched, in strict mode; one per chain
	seenExec    map[string]bool // chains already in unexpected
	nodes       map[string]*node
	folds       map[string]any
	hostDirs    map[string]*vfs
	rec         *recorder
}

type config struct {
	latency         time.Duration
	allowInvalid    bool
	allowPlaintext  bool
	strictExecs     bool
	defaultPlatform string
	version         string
}

// Option configures an Engine.
type Option func(*config)

// WithExecLatency makes every exec (and Dockerfile build) take d when it is evaluated, so
// graph benchmarks measure the critical path: independent execs overlap, and a cached exec
// costs nothing the second time.
func WithExecLatency(d time.Duration) Option {
	return func(c *config) { c.latency = d }
}

// AllowInvalidQueries stops the engine from failing the test at cleanup when a query did
// not validate, for tests that provoke one on purpose. Errors still lists them.
func AllowInvalidQueries() Option {
	return func(c *config) { c.allowInvalid = true }
}

// AllowSecretPlaintext lets Secret.plaintext return the value given to setSecret. By
// default reading a secret is refused, because production graphs should hand secrets to
// containers rather than read them.
func AllowSecretPlaintext() Option {
	return func(c *config) { c.allowPlaintext = true }
}

// StrictExecs makes an exec that no rule matches fail: it answers an exec error naming
// the command, whatever the exec expects, and the test fails at cleanup. Tests of whole
// flows use it so that every command a graph runs is one the test meant to answer; by
// default an unmatched exec exits 0 with no output, which suits unit tests of one step.
func StrictExecs() Option {
	return func(c *config) { c.strictExecs = true }
}

// New starts an engine double for the test; it stops at the test's cleanup, and the test
// fails there if any query was invalid (see AllowInvalidQueries) or, in strict mode, if an
// exec matched no rule (see StrictExecs).
func New(t testing.TB, opts ...Option) *Engine {
	t.Helper()
	schema, err := loadSchema()
	if err != nil {
		t.Fatalf("engine double: %v", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("engine double: working directory: %v", err)
	}
	cfg := config{defaultPlatform: "linux/amd64", version: daggerVersion}
	for _, o := range opts {
		o(&cfg)
	}
	e := &Engine{
		t: t, cfg: cfg, schema: schema, token: rand.Text(), hostWD: wd,
		closed:    make(chan struct{}),
		plaintext: map[string]string{},
		nodes:     map[string]*node{},
		folds:     map[string]any{},
		hostDirs:  map[string]*vfs{},
		seenExec:  map[string]bool{},
		rec:       newRecorder(),
	}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serveHTTP))
	t.Cleanup(func() {
		close(e.closed)
		e.srv.Close()
		for _, ex := range e.UnexpectedExecs() {
			t.Errorf("engine double: %v", &execFailure{cmd: ex.Args, image: ex.Image, unexpected: true})
		}
		if e.cfg.allowInvalid {
			return
		}
		for _, err := range e.Errors() {
			t.Errorf("engine double: %v", err)
		}
	})
	return e
}

// Client returns an SDK client connected to this engine; it is closed at the test's
// cleanup. Clients need no environment, so parallel tests each use their own engine.
func (e *Engine) Client(ctx context.Context) *dagger.Client {
	c, err := dagger.Connect(ctx, dagger.WithConn(&conn{e: e, client: e.srv.Client()}))
	if err != nil {
		// With an explicit connection the SDK sends nothing here, so this is a broken SDK.
		panic(fmt.Sprintf("engine double: connect: %v", err))
	}
	e.t.Cleanup(func() { _ = c.Close() })
	return c
}

// SessionEnv gives the values of DAGGER_SESSION_PORT and DAGGER_SESSION_TOKEN that make
// dagger.Connect (and a generated module's dag) join this engine.
func (e *Engine) SessionEnv() (port, token string) {
	_, port, _ = net.SplitHostPort(e.srv.Listener.Addr().String())
	return port, e.token
}

// Errors lists the queries the engine refused as malformed: validation failures and ID
// arguments that were not issued by this engine or name the wrong type. Exec failures and
// injected faults are results, not errors, and are not listed.
func (e *Engine) Errors() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]error(nil), e.errs...)
}

// UnexpectedExecs lists, in strict mode, the execs that no rule matched, once per chain
// and in the order they first ran.
func (e *Engine) UnexpectedExecs() []Exec {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.unexpected)
}

// Graph returns a snapshot of what has been evaluated so far.
func (e *Engine) Graph() *Graph {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.rec.snapshot()
}

func (e *Engine) recordError(err error) {
	e.mu.Lock()
	e.errs = append(e.errs, err)
	e.mu.Unlock()
}

// conn is the SDK's engineconn.EngineConn: it authenticates like the session env
// connection does, so every request passes the same check.
type conn struct {
	e      *Engine
	client *http.Client
}

func (c *conn) Do(r *http.Request) (*http.Response, error) {
	r.SetBasicAuth(c.e.token, "")
	return c.client.Do(r)
}

func (c *conn) Host() string { return c.e.srv.Listener.Addr().String() }

func (c *conn) Close() error { return nil }

type request struct {
	Query         string         `json:"query"`
	OperationName string         `json:"operationName"`
	Variables     map[string]any `json:"variables"`
}

// gqlError is one entry of a GraphQL response's errors list.
type gqlError struct {
	Message    string         `json:"message"`
	Locations  []gqlLocation  `json:"locations,omitempty"`
	Path       []any          `json:"path,omitempty"`
	Extensions map[string]any `json:"extensions,omitempty"`
}

type gqlLocation struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

func (e *Engine) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if user, _, ok := r.BasicAuth(); !ok || user != e.token {
		http.Error(w, "unauthorized: missing or wrong session token", http.StatusUnauthorized)
		return
	}
	if r.URL.Path != "/query" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		http.Error(w, "only POST /query is served", http.StatusMethodNotAllowed)
		return
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{
			"errors": []gqlError{{Message: "json request body could not be decoded: " + err.Error()}},
			"data":   nil,
		})
		return
	}
	doc, errs := gqlparser.LoadQuery(e.schema, req.Query)
	if len(errs) > 0 {
		e.refuse(w, req, errs)
		return
	}
	op := doc.Operations.ForName(req.OperationName)
	if op == nil {
		e.refuse(w, req, gqlerror.List{gqlerror.Errorf("operation %q not found", req.OperationName)})
		return
	}
	vars, err := validator.VariableValues(e.schema, op, req.Variables)
	if err != nil {
		e.refuse(w, req, gqlerror.List{gqlerror.WrapIfUnwrapped(err)})
		return
	}
	if op.Operation != ast.Query {
		writeJSON(w, http.StatusOK, map[string]any{"data": nil, "errors": []gqlError{{Message: "engine double: only queries are served"}}})
		return
	}
	x := &execution{e: e, vars: vars}
	data, err := x.selectObject(&chain{Type: "Query"}, op.SelectionSet, nil)
	if err != nil {
		writeJSON(w, http.StatusOK, map[string]any{"data": nil, "errors": []gqlError{toGQLError(err)}})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data})
}

// refuse answers an invalid query as the engine does (422, GRAPHQL_VALIDATION_FAILED) and
// records it, since a query the engine refuses is a bug in the code under test.
func (e *Engine) refuse(w http.ResponseWriter, req request, errs gqlerror.List) {
	out := make([]gqlError, 0, len(errs))
	msgs := make([]string, 0, len(errs))
	for _, ge := range errs {
		g := gqlError{Message: ge.Message, Extensions: map[string]any{"code": "GRAPHQL_VALIDATION_FAILED"}}
		for _, l := range ge.Locations {
			g.Locations = append(g.Locations, gqlLocation{Line: l.Line, Column: l.Column})
		}
		out = append(out, g)
		msgs = append(msgs, ge.Message)
	}
	e.recordError(&InvalidQueryError{Query: redactPlaintext(req.Query), Messages: msgs})
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"errors": out, "data": nil})
}

// InvalidQueryError is a query the engine refused; Errors lists them.
type InvalidQueryError struct {
	Query    string
	Messages []string
}

func (e *InvalidQueryError) Error() string {
	return fmt.Sprintf("invalid query %s: %s", abbreviateQuery(e.Query), strings.Join(e.Messages, "; "))
}

// plaintextArg finds setSecret's plaintext literal, so a refused query can be reported
// without the secret it carried.
var plaintextArg = regexp.MustCompile(`plaintext\s*:\s*("""(?s:.*?)"""|"(?:[^"\\]|\\.)*")`)

func redactPlaintext(q string) string {
	return plaintextArg.ReplaceAllString(q, `plaintext:"***"`)
}

func abbreviateQuery(q string) string {
	if len(q) > 300 {
		return q[:300] + "…"
	}
	return q
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// execFailure is an exec that ended outside its expected exit codes, or one that no rule
// expected in strict mode; the SDK turns the GraphQL error it becomes into
// *dagger.ExecError.
type execFailure struct {
	cmd            []string
	exitCode       int
	stdout, stderr string
	unexpected     bool
	image          string // named for an unexpected exec, to help write its rule
}

func (f *execFailure) Error() string {
	if f.unexpected {
		on := "a container without an image"
		if f.image != "" {
			on = f.image
		}
		return fmt.Sprintf("no rule expects the exec %q on %s (strict execs: add an OnExec rule for it)", strings.Join(f.cmd, " "), on)
	}
	return fmt.Sprintf("process %q did not complete successfully: exit code: %d", strings.Join(f.cmd, " "), f.exitCode)
}

func toGQLError(err error) gqlError {
	var path []any
	var fe *fieldError
	if errors.As(err, &fe) {
		path = fe.path
	}
	var f *execFailure
	if errors.As(err, &f) {
		return gqlError{Message: f.Error(), Path: path, Extensions: map[string]any{
			"_type": "EXEC_ERROR", "cmd": f.cmd, "exitCode": f.exitCode,
			"stdout": strings.TrimSpace(f.stdout), "stderr": strings.TrimSpace(f.stderr),
		}}
	}
	return gqlError{Message: err.Error(), Path: path}
}
