package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The REST layer: one function that sends a request through the client's transport (so
// retries, the ETag cache, counting and the token's redaction apply to every call),
// encodes and decodes JSON, and turns GitHub's error answers into *apiError. The
// operations describe only the fields they read or write, in small unexported structs.

const (
	// mediaType is GitHub's JSON media type in the spelling the client has always sent:
	// the ETag cache keys include Accept, so keeping it keeps exported caches valid.
	mediaType = "application/vnd.github.v3+json"
	// apiVersion pins the REST API version, so a new default version cannot change the
	// shapes the operations decode.
	apiVersion = "2022-11-28"
	// userAgent names the client, as GitHub asks API clients to do.
	userAgent = "shipyard"
	// maxErrorBody bounds how much of an error answer is read: GitHub's are small JSON
	// documents, and a proxy's HTML page need not be kept whole.
	maxErrorBody = 1 << 20
)

// apiError is GitHub's answer to a request it did not carry out: any status outside 2xx,
// and 202 Accepted, whose result is not ready yet. It names the endpoint by method and
// path only, never by URL parameters or headers, so it cannot hold credentials.
type apiError struct {
	Endpoint   string // e.g. "POST /repos/o/r/releases"
	StatusCode int
	// Message is GitHub's "message"; empty when the body was not GitHub's JSON.
	Message string
	// Errors are the entries of a 422's "errors" array.
	Errors           []fieldError
	DocumentationURL string
}

// fieldError is one entry of GitHub's "errors" array: a validation failure of one field
// (code missing_field, invalid, already_exists, …) or a "custom" one with a message.
type fieldError struct {
	Resource string `json:"resource"`
	Field    string `json:"field"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// UnmarshalJSON also accepts a bare string entry, which some endpoints send instead of
// an object; it becomes the Message.
func (e *fieldError) UnmarshalJSON(data []byte) error {
	type plain fieldError // without this method, to avoid recursion
	if err := json.Unmarshal(data, (*plain)(e)); err != nil {
		return json.Unmarshal(data, &e.Message)
	}
	return nil
}

func (e *apiError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	s := fmt.Sprintf("%s: %d %s", e.Endpoint, e.StatusCode, msg)
	if len(e.Errors) == 0 {
		return s
	}
	details := make([]string, 0, len(e.Errors))
	for _, fe := range e.Errors {
		details = append(details, fe.String())
	}
	return s + " (" + strings.Join(details, "; ") + ")"
}

// String renders the parts GitHub filled in, e.g. "Release tag_name already_exists" or
// "PullRequest custom: A pull request already exists for o:b.".
func (e fieldError) String() string {
	var parts []string
	for _, p := range []string{e.Resource, e.Field, e.Code} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	s := strings.Join(parts, " ")
	switch {
	case e.Message == "":
		return s
	case s == "":
		return e.Message
	default:
		return s + ": " + e.Message
	}
}

// do sends one request to the API at path (relative to the base URL and already escaped:
// build it with seg and segs) with query parameters, and body as JSON when not nil. A 2xx
// answer is decoded into out when not nil (an empty body leaves out as it is); any other
// answer, and 202, is an *apiError. The returned response is for its headers (Link): its
// body has been read and closed.
//
// Errors of the HTTP client itself are returned as the *url.Error it gives, so that
// OutcomeUnknown and apiErr see what the transport reported; when ctx has ended, ctx's
// error is returned instead, which says more.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body, out any) (*http.Response, error) {
	// The endpoint names the request in errors: method and path, never the query or host.
	endpoint := method + " " + c.base.EscapedPath() + path
	target := c.base.String() + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var payload io.Reader
	if body != nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		// Release notes and pull request bodies are Markdown: send "<" and "&" as they are.
		enc.SetEscapeHTML(false)
		if err := enc.Encode(body); err != nil {
			return nil, fmt.Errorf("%s: encoding the request: %w", endpoint, err)
		}
		payload = bytes.NewReader(buf.Bytes())
	}
	req, err := http.NewRequestWithContext(ctx, method, target, payload)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", endpoint, err)
	}
	req.Header.Set("Accept", mediaType)
	req.Header.Set("X-GitHub-Api-Version", apiVersion)
	req.Header.Set("User-Agent", userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}

	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	defer resp.Body.Close()

	if resp.StatusCode == http.StatusAccepted || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, errorOf(endpoint, resp)
	}
	if out == nil {
		// Read what little there is so the connection can be reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
		return resp, nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil && !errors.Is(err, io.EOF) {
		return resp, fmt.Errorf("%s: decoding the answer: %w", endpoint, err)
	}
	return resp, nil
}

// errorOf reads GitHub's error body of resp. A body that is not GitHub's JSON (a proxy's
// page, a truncated answer) still gives the status, which is what callers decide on.
func errorOf(endpoint string, resp *http.Response) *apiError {
	e := &apiError{Endpoint: endpoint, StatusCode: resp.StatusCode}
	if resp.StatusCode == http.StatusAccepted {
		e.Message = "accepted, but the result is not ready yet; try again later"
		return e
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if err != nil {
		return e
	}
	var body struct {
		Message          string       `json:"message"`
		Errors           []fieldError `json:"errors"`
		DocumentationURL string       `json:"documentation_url"`
	}
	if json.Unmarshal(data, &body) == nil {
		e.Message, e.Errors, e.DocumentationURL = body.Message, body.Errors, body.DocumentationURL
	}
	return e
}

// statusOf returns the HTTP status of GitHub's error answer, 0 for any other error.
func statusOf(err error) int {
	var e *apiError
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}

func isNotFound(err error) bool { return statusOf(err) == http.StatusNotFound }

// messageIs reports whether err is GitHub's answer with this status and message.
func messageIs(err error, status int, message string) bool {
	var e *apiError
	return errors.As(err, &e) && e.StatusCode == status &&
		strings.EqualFold(strings.TrimSpace(e.Message), message)
}

// alreadyExists recognises GitHub's validation error for a resource that exists already
// (code already_exists, e.g. a published release of the same tag).
func alreadyExists(err error) bool {
	var e *apiError
	if !errors.As(err, &e) {
		return false
	}
	for _, fe := range e.Errors {
		if fe.Code == "already_exists" {
			return true
		}
	}
	return false
}

// nextPage returns the page number of the Link header's rel="next" target, 0 when there
// is none. Like GitHub's own clients it takes the page parameter from that URL and asks
// for it with the caller's other parameters, rather than following the URL itself, so
// that a server's Link cannot send the client (and its token) elsewhere.
func nextPage(h http.Header) int {
	for _, header := range h.Values("Link") {
		for link := range strings.SplitSeq(header, ",") {
			target, params, ok := strings.Cut(strings.TrimSpace(link), ";")
			target = strings.TrimSpace(target)
			if !ok || !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
				continue
			}
			if !relIsNext(params) {
				continue
			}
			u, err := url.Parse(target[1 : len(target)-1])
			if err != nil {
				continue
			}
			if n, err := strconv.Atoi(u.Query().Get("page")); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// relIsNext reports whether a link's parameters (after the URL) hold rel="next", also in
// a space-separated list of relations or unquoted, as RFC 8288 allows.
func relIsNext(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		name, value, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "rel") {
			continue
		}
		for rel := range strings.FieldsSeq(strings.Trim(strings.TrimSpace(value), `"`)) {
			if strings.EqualFold(rel, "next") {
				return true
			}
		}
	}
	return false
}

// pageQuery asks for page (the first when 0) of perPage items.
func pageQuery(perPage, page int) url.Values {
	q := url.Values{"per_page": {strconv.Itoa(perPage)}}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	return q
}

// seg escapes one path segment: a "/" in it is data (a branch name in a compare, a tag,
// a workflow file), not structure.
func seg(s string) string { return url.PathEscape(s) }

// segs escapes each "/"-separated segment of p and keeps the slashes, for names whose
// slashes GitHub reads as structure: refs such as heads/automation/model-versions.
func segs(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// contentPath escapes a repository file path for the contents endpoint, keeping its
// slashes. It is the URL path encoding, which leaves "," and ";" as they are, so cached
// contents keep the URLs (and cache keys) they always had.
func contentPath(p string) string { return (&url.URL{Path: p}).EscapedPath() }

// repoPath is the escaped API path of a repository's resource: repos/{owner}/{repo}/rest,
// where rest is already escaped.
func repoPath(owner, repo, rest string) string {
	return "repos/" + seg(owner) + "/" + seg(repo) + "/" + rest
}
