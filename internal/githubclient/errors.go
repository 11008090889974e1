package githubclient

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	gh "github.com/google/go-github/v84/github"

	"dagger/shipyard/internal/github"
)

// fieldErrors are the entries of a 422's "errors" array, as plain data.
func fieldErrors(in []gh.Error) []github.FieldError {
	var out []github.FieldError
	for _, e := range in {
		out = append(out, github.FieldError{Resource: e.Resource, Field: e.Field, Code: e.Code, Message: e.Message})
	}
	return out
}

// endpointOf names a request in errors: method and escaped path, never host or query.
func endpointOf(req *http.Request) string {
	if req == nil || req.URL == nil {
		return "request"
	}
	return req.Method + " " + req.URL.EscapedPath()
}

// apiErr turns what a go-github call returned into the errors this package reads and
// hands on: GitHub's answers become *github.APIError; a transport's *RetryError loses the
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
		return &github.APIError{Endpoint: endpointOf(er.Response.Request), StatusCode: er.Response.StatusCode, Message: er.Message, Errors: fieldErrors(er.Errors),
			AcceptedPermissions: er.Response.Header.Get("X-Accepted-GitHub-Permissions")}
	case errors.As(err, &rl) && rl.Response != nil:
		return &github.APIError{Endpoint: endpointOf(rl.Response.Request), StatusCode: rl.Response.StatusCode, Message: rl.Message}
	case errors.As(err, &ab) && ab.Response != nil:
		return &github.APIError{Endpoint: endpointOf(ab.Response.Request), StatusCode: ab.Response.StatusCode, Message: ab.Message}
	case errors.As(err, &ac) && hr != nil:
		return &github.APIError{Endpoint: endpointOf(hr.Request), StatusCode: http.StatusAccepted,
			Message: "accepted, but the result is not ready yet; try again later"}
	case hr != nil && hr.StatusCode >= 200 && hr.StatusCode <= 299:
		// go-github hands back the response with a body that did not decode.
		return fmt.Errorf("%s: decoding the answer: %w", endpointOf(hr.Request), err)
	}
	return err
}

func isNotFound(err error) bool { return github.StatusOf(err) == http.StatusNotFound }

// seg escapes one path segment before it reaches go-github, which puts owner, repository,
// tag and workflow names into paths as they are: a "/" or "?" in them is data, and must
// not reach another API resource with the client's token.
func seg(s string) string { return url.PathEscape(s) }
