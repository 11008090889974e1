package githubclient

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v84/github"

	"dagger/shipyard/internal/github"
)

func pullOf(p *gh.PullRequest) github.PullRequest {
	return github.PullRequest{
		Number: p.GetNumber(), Title: p.GetTitle(), Body: p.GetBody(), State: p.GetState(), URL: p.GetHTMLURL(),
		Head: p.GetHead().GetRef(), HeadSHA: p.GetHead().GetSHA(), Base: p.GetBase().GetRef(),
	}
}

// OpenPullRequest returns the open pull request from branch head of the repository's own
// owner into base; found is false when there is none. GitHub allows one open pull request
// per head and base, so one list call answers, and the same URL every run lets the ETag
// cache turn an unchanged answer into a 304.
func (c *Client) OpenPullRequest(ctx context.Context, owner, repo, head, base string) (github.PullRequest, bool, error) {
	// The owner prefix matters: GitHub ignores a head filter without it and lists every
	// open pull request.
	pulls, resp, err := c.gh.PullRequests.List(ctx, seg(owner), seg(repo), &gh.PullRequestListOptions{
		State: "open", Head: owner + ":" + head, Base: base,
	})
	if err = apiErr(resp, err); err != nil {
		return github.PullRequest{}, false, fmt.Errorf("github: open pull requests from %s into %s of %s/%s: %w", head, base, owner, repo, err)
	}
	for _, p := range pulls {
		if pr := pullOf(p); pr.Head == head && pr.Base == base && pr.State == "open" {
			return pr, true, nil
		}
	}
	return github.PullRequest{}, false, nil
}

// CreatePullRequest opens a pull request. It is a write, sent once. When one is already
// open for the same head and base the error wraps ErrAlreadyExists.
func (c *Client) CreatePullRequest(ctx context.Context, owner, repo string, np github.NewPullRequest) (github.PullRequest, error) {
	p, resp, err := c.gh.PullRequests.Create(ctx, seg(owner), seg(repo), &gh.NewPullRequest{
		Title: gh.Ptr(np.Title), Body: gh.Ptr(np.Body), Head: gh.Ptr(np.Head), Base: gh.Ptr(np.Base),
	})
	if err = apiErr(resp, err); err != nil {
		if pullExists(err) {
			err = fmt.Errorf("%w: %w", github.ErrAlreadyExists, err)
		}
		return github.PullRequest{}, fmt.Errorf("github: open pull request from %s into %s of %s/%s: %w", np.Head, np.Base, owner, repo, err)
	}
	return pullOf(p), nil
}

// pullExists recognises GitHub's 422 for a second open pull request of the same head:
// a "custom" error whose message says "A pull request already exists for owner:branch.".
func pullExists(err error) bool {
	var ae *github.APIError
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

// EditPullRequest changes a pull request's title, body or state.
func (c *Client) EditPullRequest(ctx context.Context, owner, repo string, number int, e github.PullRequestEdit) (github.PullRequest, error) {
	p, resp, err := c.gh.PullRequests.Edit(ctx, seg(owner), seg(repo), number, &gh.PullRequest{Title: e.Title, Body: e.Body, State: e.State})
	if err = apiErr(resp, err); err != nil {
		return github.PullRequest{}, fmt.Errorf("github: edit pull request #%d of %s/%s: %w", number, owner, repo, err)
	}
	return pullOf(p), nil
}
