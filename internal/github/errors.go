package github

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v84/github"
)

// apiError is GitHub's answer to a request it did not carry out: any status outside 2xx,
// and 202 Accepted, whose result is not ready yet. It names the endpoint by method and
// path only, never by host, URL parameters or headers, so it cannot hold credentials, and
// callers read one error type whichever of go-github's (ErrorResponse, RateLimitError,
// AbuseRateLimitError, AcceptedError) carried the answer.
type apiError struct {
	Endpoint   string // e.g. "POST /repos/o/r/releases"
	StatusCode int
	// Message is GitHub's "message"; empty when the body was not GitHub's JSON.
	Message string
	// Errors are the entries of a 422's "errors" array.
	Errors []gh.Error
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
		details = append(details, fieldText(fe))
	}
	return s + " (" + strings.Join(details, "; ") + ")"
}

// fieldText renders the parts of one "errors" entry GitHub filled in, e.g. "Release
// tag_name already_exists" or "PullRequest custom: A pull request already exists for o:b.".
func fieldText(e gh.Error) string {
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

// endpointOf names a request in errors: method and escaped path, never host or query.
func endpointOf(req *http.Request) string {
	if req == nil || req.URL == nil {
		return "request"
	}
	return req.Method + " " + req.URL.EscapedPath()
}

// apiErr turns what a go-github call returned into the errors this package reads and
// hands on: GitHub's answers become *apiError; a transport's *RetryError loses the
// url.Error wrapper net/http puts around it (whose text repeats the URL); an answer that
// does not decode names its endpoint. Network errors and the caller's cancellation pass
// through, so OutcomeUnknown still sees them.
func apiErr(resp *gh.Response, err error) error {
	if err == nil {
		return nil
	}
	var re *RetryError
	if errors.As(err, &re) {
		return re
	}
	var hr *http.Response
	if resp != nil {
		hr = resp.Response
	}
	var (
		er *gh.ErrorResponse
		rl *gh.RateLimitError
		ab *gh.AbuseRateLimitError
		ac *gh.AcceptedError
	)
	switch {
	case errors.As(err, &er) && er.Response != nil:
		return &apiError{Endpoint: endpointOf(er.Response.Request), StatusCode: er.Response.StatusCode, Message: er.Message, Errors: er.Errors}
	case errors.As(err, &rl) && rl.Response != nil:
		return &apiError{Endpoint: endpointOf(rl.Response.Request), StatusCode: rl.Response.StatusCode, Message: rl.Message}
	case errors.As(err, &ab) && ab.Response != nil:
		return &apiError{Endpoint: endpointOf(ab.Response.Request), StatusCode: ab.Response.StatusCode, Message: ab.Message}
	case errors.As(err, &ac) && hr != nil:
		return &apiError{Endpoint: endpointOf(hr.Request), StatusCode: http.StatusAccepted,
			Message: "accepted, but the result is not ready yet; try again later"}
	case hr != nil && hr.StatusCode >= 200 && hr.StatusCode <= 299:
		// go-github hands back the response with a body that did not decode.
		return fmt.Errorf("%s: decoding the answer: %w", endpointOf(hr.Request), err)
	}
	return err
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

// seg escapes one path segment before it reaches go-github, which puts owner, repository,
// tag and workflow names into paths as they are: a "/" or "?" in them is data, and must
// not reach another API resource with the client's token.
func seg(s string) string { return url.PathEscape(s) }
