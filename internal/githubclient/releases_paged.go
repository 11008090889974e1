package githubclient

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v84/github"

	"dagger/shipyard/internal/github"
)

// ReleasePage reads one page of a repository's releases, newest first: page (from 1) of
// perPage (1 to 100; 100 when out of range), and the number of the next page, 0 after the
// last. github.ReleasePages reads page after page of it.
func (c *Client) ReleasePage(ctx context.Context, owner, repo string, perPage, page int) ([]github.Release, int, error) {
	if perPage < 1 || perPage > 100 {
		perPage = 100
	}
	list, resp, err := c.gh.Repositories.ListReleases(ctx, seg(owner), seg(repo), &gh.ListOptions{PerPage: perPage, Page: page})
	if err = apiErr(resp, err); err != nil {
		if isNotFound(err) {
			err = fmt.Errorf("%w: %w", github.ErrNotFound, err)
		}
		return nil, 0, fmt.Errorf("github: releases of %s/%s (page %d): %w", owner, repo, max(page, 1), err)
	}
	out := make([]github.Release, 0, len(list))
	for _, r := range list {
		out = append(out, releaseOf(r))
	}
	return out, resp.NextPage, nil
}
