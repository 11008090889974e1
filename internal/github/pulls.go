package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// PullRequest is a pull request between two branches of one repository.
type PullRequest struct {
	Number  int
	Title   string
	Body    string
	State   string // "open" or "closed"
	URL     string // the pull request's page on GitHub
	Head    string // head branch name
	HeadSHA string
	Base    string // base branch name
}

// pullJSON holds the fields of a pull request the client reads.
type pullJSON struct {
	Number  int    `json:"number"`
	Title   string `json:"title"`
	Body    string `json:"body"`
	State   string `json:"state"`
	HTMLURL string `json:"html_url"`
	Head    struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	} `json:"head"`
	Base struct {
		Ref string `json:"ref"`
	} `json:"base"`
}

func pullOf(p pullJSON) PullRequest {
	return PullRequest{
		Number: p.Number, Title: p.Title, Body: p.Body, State: p.State, URL: p.HTMLURL,
		Head: p.Head.Ref, HeadSHA: p.Head.SHA, Base: p.Base.Ref,
	}
}

// OpenPullRequest returns the open pull request from branch head of the repository's own
// owner into base; found is false when there is none. GitHub allows one open pull request
// per head and base, so one list call answers, and the same URL every run lets the ETag
// cache turn an unchanged answer into a 304.
func (c *Client) OpenPullRequest(ctx context.Context, owner, repo, head, base string) (PullRequest, bool, error) {
	// The owner prefix matters: GitHub ignores a head filter without it and lists every
	// open pull request.
	q := url.Values{"state": {"open"}, "head": {owner + ":" + head}}
	if base != "" {
		q.Set("base", base)
	}
	var pulls []pullJSON
	_, err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "pulls"), q, nil, &pulls)
	if err != nil {
		return PullRequest{}, false, fmt.Errorf("github: open pull requests from %s into %s of %s/%s: %w", head, base, owner, repo, apiErr(err))
	}
	for _, p := range pulls {
		if pr := pullOf(p); pr.Head == head && pr.Base == base && pr.State == "open" {
			return pr, true, nil
		}
	}
	return PullRequest{}, false, nil
}

// NewPullRequest describes a pull request to open from a branch of the same repository.
type NewPullRequest struct {
	Title, Body string
	Head, Base  string // branch names
}

// CreatePullRequest opens a pull request. It is a write, sent once. When one is already
// open for the same head and base the error wraps ErrAlreadyExists.
func (c *Client) CreatePullRequest(ctx context.Context, owner, repo string, np NewPullRequest) (PullRequest, error) {
	in := struct {
		Title string `json:"title"`
		Body  string `json:"body"`
		Head  string `json:"head"`
		Base  string `json:"base"`
	}{np.Title, np.Body, np.Head, np.Base}
	var p pullJSON
	_, err := c.do(ctx, http.MethodPost, repoPath(owner, repo, "pulls"), nil, in, &p)
	if err != nil {
		if pullExists(err) {
			err = fmt.Errorf("%w: %w", ErrAlreadyExists, err)
		}
		return PullRequest{}, fmt.Errorf("github: open pull request from %s into %s of %s/%s: %w", np.Head, np.Base, owner, repo, apiErr(err))
	}
	return pullOf(p), nil
}

// pullExists recognises GitHub's 422 for a second open pull request of the same head:
// a "custom" error whose message says "A pull request already exists for owner:branch.".
func pullExists(err error) bool {
	var ae *apiError
	if !errors.As(err, &ae) {
		return false
	}
	for _, e := range ae.Errors {
		if strings.HasPrefix(e.Message, "A pull request already exists") {
			return true
		}
	}
	return false
}

// PullRequestEdit holds the fields to change; nil leaves a field as it is.
type PullRequestEdit struct {
	Title *string
	Body  *string
	// State is "open" or "closed".
	State *string
}

// EditPullRequest changes a pull request's title, body or state.
func (c *Client) EditPullRequest(ctx context.Context, owner, repo string, number int, e PullRequestEdit) (PullRequest, error) {
	// nil fields are left out, so GitHub leaves them as they are.
	in := struct {
		Title *string `json:"title,omitempty"`
		Body  *string `json:"body,omitempty"`
		State *string `json:"state,omitempty"`
	}{e.Title, e.Body, e.State}
	var p pullJSON
	_, err := c.do(ctx, http.MethodPatch, repoPath(owner, repo, "pulls/"+strconv.Itoa(number)), nil, in, &p)
	if err != nil {
		return PullRequest{}, fmt.Errorf("github: edit pull request #%d of %s/%s: %w", number, owner, repo, apiErr(err))
	}
	return pullOf(p), nil
}
