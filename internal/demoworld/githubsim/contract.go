package githubsim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"dagger/shipyard/internal/demoworld/corpus"
)

// The simulator is our own reading of GitHub's documentation. To keep that reading
// honest, every request it receives and every answer it gives is checked against GitHub's
// own REST API description (../shared/corpus/github-openapi): the operation (method and
// path), its parameters and request body, and the answer's status, headers and body
// against the operation's schema for that status, and the token headers the description
// leaves out against what GitHub documents of them (tokenheaders.go). A disagreement
// fails the test that started the simulator, when it ends.
//
// A status the operation does not list is right only where GitHub gives it on any
// endpoint (anyEndpointAnswer; a 304 to a conditional GET) or where the description is
// known to leave it out (undocumentedAnswers); its body is then held to the description's
// error schemas.

// contract checks one server's traffic against the description.
type contract struct {
	desc *description

	mu         sync.Mutex
	mismatches []mismatch
	seen       map[string]int // mismatch key → index in mismatches
}

// mismatch is one way the traffic disagreed with the description.
type mismatch struct {
	Side      string // "request" or "response"
	Method    string
	Path      string // as requested
	Operation string // the description's path template, when one matched
	Status    int    // the answer's status (response side)
	Detail    string
	Count     int
}

func (m mismatch) String() string {
	op := "no operation"
	if m.Operation != "" {
		op = "operation " + m.Method + " " + m.Operation
	}
	where := m.Side
	if m.Side == "response" {
		where = fmt.Sprintf("response %d", m.Status)
	}
	s := fmt.Sprintf("%s %s (%s): %s: %s", m.Method, m.Path, op, where, m.Detail)
	if m.Count > 1 {
		s += fmt.Sprintf(" (%d times)", m.Count)
	}
	return s
}

// newContract loads the description (once per process) for a server, following the corpus
// locator's rule: nil (unchecked, said in the log) on a developer's machine without the
// corpus, a failed test in CI.
func newContract(tb testing.TB) *contract {
	tb.Helper()
	file, verdict, why := locateDescription()
	switch verdict {
	case corpus.Fail:
		tb.Fatalf("githubsim: %s, and CI is set, where the simulator must be checked against GitHub's API description", why)
	case corpus.Skip:
		tb.Logf("githubsim: answers not checked against GitHub's API description: %s", why)
		return nil
	}
	desc, err := githubDescription(file)
	if err != nil {
		tb.Fatalf("githubsim: %v", err)
	}
	return &contract{desc: desc, seen: map[string]int{}}
}

// WithoutDescriptionCheck serves without checking the traffic against GitHub's API
// description, for a program that serves the simulator outside a test, where no test
// could fail on a mismatch.
func WithoutDescriptionCheck() Option {
	return func(s *Server) { s.unchecked = true }
}

// exchangeKey carries an *exchange in a request's context, from the checking middleware
// to the handler that answers.
type exchangeKey struct{}

// exchange is what the handler tells the check about its answer.
type exchange struct {
	// protocol marks an answer that is not the operation's own: authentication, the
	// primary rate limit or an injected fault.
	protocol bool
}

// markProtocolAnswer records that the request is answered by the protocol layer.
func markProtocolAnswer(r *http.Request) {
	if ex, ok := r.Context().Value(exchangeKey{}).(*exchange); ok {
		ex.protocol = true
	}
}

// recorder keeps a copy of an answer for the check.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *recorder) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

// middleware checks each request and its answer after next has answered it.
func (c *contract) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 10<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		ex := &exchange{}
		r = r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex))
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		c.check(r, body, rec.status, w.Header().Clone(), rec.body.Bytes(), ex.protocol)
	})
}

// check validates one exchange and records what disagrees.
func (c *contract) check(r *http.Request, reqBody []byte, status int, header http.Header, respBody []byte, protocol bool) {
	route, params, err := c.desc.match(r.Method, r.URL.EscapedPath())
	if err != nil {
		c.record(mismatch{Side: "request", Method: r.Method, Path: r.URL.Path, Detail: err.Error()})
		return
	}
	base := mismatch{Method: r.Method, Path: r.URL.Path, Operation: route.Path}
	for _, wrong := range c.checkTokenHeaders(header) {
		c.record(with(base, "response", status, wrong))
	}
	schemaOpts := []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()}

	// A copy of the request with its body, since validation reads it.
	req := r.Clone(r.Context())
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	if len(reqBody) == 0 {
		req.Body = http.NoBody
	}
	reqInput := &openapi3filter.RequestValidationInput{
		Request:    req,
		PathParams: params,
		Route:      route,
		Options: &openapi3filter.Options{
			AuthenticationFunc:                openapi3filter.NoopAuthenticationFunc,
			MultiError:                        true,
			RejectWhenRequestBodyNotSpecified: true,
			SkipSettingDefaults:               true,
			SchemaValidationOptions:           schemaOpts,
		},
	}
	requestValid := true
	if err := openapi3filter.ValidateRequest(r.Context(), reqInput); err != nil {
		requestValid = false
		c.record(with(base, "request", 0, summary(err)))
	}
	for _, name := range undeclaredQuery(route.Operation, route.PathItem, r) {
		requestValid = false
		c.record(with(base, "request", 0, fmt.Sprintf("query parameter %q is not a parameter of this operation", name)))
	}

	if route.Operation.Responses.Status(status) == nil {
		// An answer the operation does not list: right only where GitHub gives it on any
		// endpoint, or where the description is known to leave it out.
		if status == http.StatusNotModified && r.Method == http.MethodGet && r.Header.Get("If-None-Match") != "" && len(respBody) == 0 {
			// GitHub answers a conditional GET of any endpoint that sends an ETag this way
			// (REST API best practices: conditional requests); there is no body to check.
			return
		}
		why := anyEndpointAnswer(status, protocol, requestValid)
		if why == "" {
			why = undocumentedAnswers[r.Method+" "+route.Path][status]
		}
		if why == "" {
			c.record(with(base, "response", status, "status is not one the description lists for this operation"))
			return
		}
		if err := c.checkErrorBody(status, header, respBody); err != nil {
			c.record(with(base, "response", status, err.Error()))
		}
		return
	}
	respInput := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: reqInput,
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(respBody)),
		Options: &openapi3filter.Options{
			IncludeResponseStatus:   true,
			MultiError:              true,
			SchemaValidationOptions: schemaOpts,
		},
	}
	if err := openapi3filter.ValidateResponse(r.Context(), respInput); err != nil {
		c.record(with(base, "response", status, summary(err)))
	}
}

// anyEndpointAnswer says why an error status is right on an operation that does not list
// it, when GitHub documents it for every endpoint rather than per operation (REST API
// overview: authentication, rate limits, client errors): a missing or bad token (401), a
// token without the permission (403), a spent rate limit (403, 429), a server fault (5xx),
// a resource that does not exist or is hidden from the token (404), and the answers to a
// request that is itself invalid (400 for a body that is not JSON, 422 Validation Failed).
// It returns "" otherwise.
func anyEndpointAnswer(status int, protocol, requestValid bool) string {
	switch {
	case protocol:
		return "authentication, permission, rate limit or server fault"
	case status == http.StatusNotFound:
		return "not found, or hidden from the token"
	case !requestValid && (status == http.StatusBadRequest || status == http.StatusUnprocessableEntity):
		return "an invalid request"
	}
	return ""
}

func with(m mismatch, side string, status int, detail string) mismatch {
	m.Side, m.Status, m.Detail = side, status, detail
	return m
}

// checkErrorBody holds an error answer to the description's error schemas: validation-error
// for a 422, basic-error for the others.
func (c *contract) checkErrorBody(status int, header http.Header, body []byte) error {
	if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("content type %q, want application/json", ct)
	}
	name := "basic-error"
	if status == http.StatusUnprocessableEntity {
		name = "validation-error"
	}
	schema, err := c.desc.schema(name)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	if err := schema.VisitJSON(v, openapi3.MultiErrors(), openapi3.DisableSchemaErrorDetails()); err != nil {
		return fmt.Errorf("body does not match %s: %s", name, summary(err))
	}
	return nil
}

// undeclaredQuery lists the query parameters a request carries that its operation does not
// declare (kin-openapi checks the declared ones only).
func undeclaredQuery(op *openapi3.Operation, item *openapi3.PathItem, r *http.Request) []string {
	declared := map[string]bool{}
	for _, ps := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, p := range ps {
			if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
				declared[p.Value.Name] = true
			}
		}
	}
	var out []string
	for name := range r.URL.Query() {
		if !declared[name] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func (c *contract) record(m mismatch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := strings.Join([]string{m.Side, m.Method, m.Operation, fmt.Sprint(m.Status), m.Detail}, "\x00")
	if m.Operation == "" {
		key += "\x00" + m.Path
	}
	if i, ok := c.seen[key]; ok {
		c.mismatches[i].Count++
		return
	}
	m.Count = 1
	c.seen[key] = len(c.mismatches)
	c.mismatches = append(c.mismatches, m)
}

// take returns the mismatches recorded so far and forgets them.
func (c *contract) take() []mismatch {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.mismatches
	c.mismatches, c.seen = nil, map[string]int{}
	return out
}

// report fails the test for every mismatch recorded.
func (c *contract) report(tb testing.TB) {
	ms := c.take()
	if len(ms) == 0 {
		return
	}
	lines := make([]string, len(ms))
	for i, m := range ms {
		lines[i] = "  " + m.String()
	}
	tb.Errorf("githubsim: %d disagreement(s) with GitHub's REST API description (%s/%s); fix the simulator (or the client's request), not the check:\n%s",
		len(ms), descriptionCorpus, descriptionFile, strings.Join(lines, "\n"))
}

// summary shortens a validation error: schema errors are grouped by where they are in the
// body (array indexes as *), and the properties missing at one place are listed together.
func summary(err error) string {
	var prefix string
	var inner error = err
	var respErr *openapi3filter.ResponseError
	var reqErr *openapi3filter.RequestError
	switch {
	case errors.As(err, &respErr) && respErr.Err != nil:
		prefix, inner = respErr.Reason, respErr.Err
	case errors.As(err, &reqErr) && reqErr.Err != nil && reqErr.Parameter != nil:
		prefix, inner = fmt.Sprintf("parameter %q in %s", reqErr.Parameter.Name, reqErr.Parameter.In), reqErr.Err
	case errors.As(err, &reqErr) && reqErr.Err != nil:
		prefix, inner = "request body: "+reqErr.Reason, reqErr.Err
	}
	var leaves []*openapi3.SchemaError
	var others []string
	var walk func(error)
	walk = func(e error) {
		var me openapi3.MultiError
		var se *openapi3.SchemaError
		switch {
		case errors.As(e, &me) && !isSchemaError(e):
			for _, x := range me {
				walk(x)
			}
		case errors.As(e, &se):
			leaves = append(leaves, se)
		default:
			others = append(others, e.Error())
		}
	}
	walk(inner)
	if len(leaves) == 0 {
		return err.Error()
	}
	missing := map[string][]string{}
	var order []string
	seen := map[string]bool{}
	for _, se := range leaves {
		ptr := pointer(se.JSONPointer())
		reason := se.Reason
		if name, ok := strings.CutPrefix(reason, "property \""); ok && strings.HasSuffix(name, "\" is missing") {
			parent := pointer(dropLast(se.JSONPointer()))
			if _, ok := missing[parent]; !ok {
				order = append(order, "missing@"+parent)
			}
			name = strings.TrimSuffix(name, "\" is missing")
			if !slices.Contains(missing[parent], name) {
				missing[parent] = append(missing[parent], name)
			}
			continue
		}
		line := ptr + ": " + reason
		if !seen[line] {
			seen[line] = true
			order = append(order, line)
		}
	}
	parts := make([]string, 0, len(order)+len(others))
	for _, o := range order {
		if parent, ok := strings.CutPrefix(o, "missing@"); ok {
			parts = append(parts, parent+": missing required "+strings.Join(missing[parent], ", "))
			continue
		}
		parts = append(parts, o)
	}
	parts = append(parts, others...)
	out := strings.Join(parts, "; ")
	if prefix != "" {
		out = prefix + ": " + out
	}
	return out
}

func isSchemaError(e error) bool {
	_, ok := e.(*openapi3.SchemaError)
	return ok
}

func dropLast(p []string) []string {
	if len(p) == 0 {
		return p
	}
	return p[:len(p)-1]
}

// pointer writes a JSON pointer with array indexes as *, so that one fault in every item of
// a list is reported once.
func pointer(p []string) string {
	var b strings.Builder
	for _, s := range p {
		b.WriteByte('/')
		if _, err := strconv.Atoi(s); err == nil {
			b.WriteByte('*')
			continue
		}
		b.WriteString(s)
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// isPermissionRefusal tells GitHub's 403 for a token without the permission an endpoint
// needs ("Resource not accessible by integration" / "… by personal access token"): GitHub
// gives it on any endpoint, and the description lists it only on some.
func isPermissionRefusal(rep reply) bool {
	e, ok := rep.body.(apiError)
	return ok && rep.status == http.StatusForbidden && strings.HasPrefix(e.Message, "Resource not accessible by ")
}
