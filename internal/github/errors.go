package github

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// APIError is GitHub's answer to a request it did not carry out: any status outside 2xx,
// and 202 Accepted, whose result is not ready yet. It names the endpoint by method and
// path only, never by host, URL parameters or headers, so it cannot hold credentials, and
// callers read one error type whichever of go-github's (ErrorResponse, RateLimitError,
// AbuseRateLimitError, AcceptedError) carried the answer. It is plain data, so it crosses
// from the GitHub command to the module as it is.
type APIError struct {
	Endpoint   string `json:"endpoint"` // e.g. "POST /repos/o/r/releases"
	StatusCode int    `json:"status"`
	// Message is GitHub's "message"; empty when the body was not GitHub's JSON.
	Message string `json:"message,omitempty"`
	// Errors are the entries of a 422's "errors" array.
	Errors []FieldError `json:"errors,omitempty"`
	// AcceptedPermissions is GitHub's X-Accepted-GitHub-Permissions on the answer: what a
	// fine-grained or App token needs for the endpoint ("contents=write"; sets that would
	// each do are separated by ";"), "" when GitHub did not say.
	AcceptedPermissions string `json:"accepted_permissions,omitempty"`
}

// FieldError is one entry of a 422's "errors" array.
type FieldError struct {
	Resource string `json:"resource,omitempty"`
	Field    string `json:"field,omitempty"`
	Code     string `json:"code,omitempty"`
	Message  string `json:"message,omitempty"`
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	s := fmt.Sprintf("%s: %d %s", e.Endpoint, e.StatusCode, msg)
	if e.AcceptedPermissions != "" {
		s += " (the token needs " + e.AcceptedPermissions + ")"
	}
	if len(e.Errors) == 0 {
		return s
	}
	details := make([]string, 0, len(e.Errors))
	for _, fe := range e.Errors {
		details = append(details, fe.text())
	}
	return s + " (" + strings.Join(details, "; ") + ")"
}

// text renders the parts of one "errors" entry GitHub filled in, e.g. "Release tag_name
// already_exists" or "PullRequest custom: A pull request already exists for o:b.".
func (e FieldError) text() string {
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

// StatusOf returns the HTTP status of GitHub's error answer, 0 for any other error.
func StatusOf(err error) int {
	var e *APIError
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}

// AcceptedPermissionsOf returns what GitHub said the refused request needs of a
// fine-grained or App token (X-Accepted-GitHub-Permissions), "" when err does not say.
func AcceptedPermissionsOf(err error) string {
	var e *APIError
	if errors.As(err, &e) {
		return e.AcceptedPermissions
	}
	return ""
}

// apiMessage is GitHub's "message" of its error answer, "" for any other error.
func apiMessage(err error) string {
	var e *APIError
	if errors.As(err, &e) {
		return e.Message
	}
	return ""
}

// MessageIs reports whether err is GitHub's answer with this status and message.
func MessageIs(err error, status int, message string) bool {
	var e *APIError
	return errors.As(err, &e) && e.StatusCode == status &&
		strings.EqualFold(strings.TrimSpace(e.Message), message)
}

// IsAlreadyExists recognises GitHub's validation error for a resource that exists already
// (code already_exists, e.g. a published release of the same tag).
func IsAlreadyExists(err error) bool {
	var e *APIError
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

// ErrRefused marks a request the client would not send; nothing reached the network, so
// the outcome of a refused write is known: it did not happen.
var ErrRefused = errors.New("refused before sending")
