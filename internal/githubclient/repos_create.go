package githubclient

import (
	"context"
	"fmt"
	"net/http"

	gh "github.com/google/go-github/v84/github"

	"dagger/shipyard/internal/github"
)

// CreateOrgRepo creates a repository of the organisation org. A repository of that name
// already there wraps ErrAlreadyExists; a token that may not create one wraps
// ErrNotAllowed. A creation whose outcome is unknown is read back before it is repeated.
func (c *Client) CreateOrgRepo(ctx context.Context, org string, r github.NewRepository) error {
	repo := &gh.Repository{
		Name: gh.Ptr(r.Name), Description: gh.Ptr(r.Description),
		Private: gh.Ptr(!r.Public), AutoInit: gh.Ptr(r.WithReadme),
	}
	exists := func(ctx context.Context) (bool, error) {
		_, found, err := c.RepoPermissions(ctx, org, r.Name)
		return found, err
	}
	err := c.WriteThenVerify(ctx, func(ctx context.Context) error {
		_, resp, err := c.gh.Repositories.Create(ctx, seg(org), repo)
		return apiErr(resp, err)
	}, exists)
	switch code := github.StatusOf(err); {
	case err == nil:
		return nil
	case code == http.StatusForbidden || code == http.StatusNotFound:
		err = fmt.Errorf("%w: %w", github.ErrNotAllowed, err)
	case code == http.StatusUnprocessableEntity:
		if found, ferr := exists(ctx); ferr == nil && found {
			err = fmt.Errorf("%w: %w", github.ErrAlreadyExists, err)
		}
	}
	return fmt.Errorf("github: create repository %s in %s: %w", r.Name, org, err)
}

// ReplaceTopics makes a repository's topics exactly topics.
func (c *Client) ReplaceTopics(ctx context.Context, owner, repo string, topics []string) error {
	_, resp, err := c.gh.Repositories.ReplaceAllTopics(ctx, seg(owner), seg(repo), topics)
	if err = apiErr(resp, err); err != nil {
		if code := github.StatusOf(err); code == http.StatusForbidden || code == http.StatusNotFound {
			err = fmt.Errorf("%w: %w", github.ErrNotAllowed, err)
		}
		return fmt.Errorf("github: set the topics of %s/%s: %w", owner, repo, err)
	}
	return nil
}
