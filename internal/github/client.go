// Package github is the plain data of Shipyard's GitHub operations: the facts they read
// (releases, tags, trees, pull requests, settings), what they write, and the errors they
// answer with. It imports only the standard library, so the rules and the module binary,
// which every job compiles before its first call, use it without linking a GitHub client;
// the client itself (package githubclient, on go-github) runs in the GitHub command
// (cmd/github).
package github

import (
	"errors"
)

// DefaultBaseURL is GitHub.com's REST API.
const DefaultBaseURL = "https://api.github.com/"

// ErrNotFound is wrapped by errors for a resource GitHub reports missing (404) where the
// operation has no "found" result of its own.
var ErrNotFound = errors.New("not found")

// ErrAlreadyExists is wrapped by errors for a write GitHub refused because the resource
// exists already (422 already_exists).
var ErrAlreadyExists = errors.New("already exists")

// Stats counts what the client sent.
type Stats struct {
	// Requests is every HTTP request sent, retries and conditional ones included.
	Requests int64
	// NotModified is how many were answered 304 and served from the ETag cache; GitHub
	// does not count them against the rate limit.
	NotModified int64
	// Retries is how many requests were repeats after a 5xx, rate limit or network error.
	Retries int64
}
