package githubclient

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v84/github"

	"dagger/shipyard/internal/github"
)

// ReleasePages reads a repository's releases newest first, one page of perPage (1 to 100;
// 100 when out of range) at a time, handing each page to more; it stops when more returns
// false, after the last page, or after maxPages pages (0 means maxReleasePages). It
// returns how many pages it read and whether it stopped for one of the first two reasons
// (complete) rather than the page limit.
//
// Unlike Releases, the caller decides how far to go: a flow that only needs releases newer
// than what it tracks stops after the first page or two instead of reading a project's
// whole history, and each page is one conditional request that costs nothing when unchanged.
func (c *Client) ReleasePages(ctx context.Context, owner, repo string, perPage, maxPages int, more func([]github.Release) bool) (pages int, complete bool, err error) {
	if perPage < 1 || perPage > 100 {
		perPage = 100
	}
	if maxPages <= 0 || maxPages > maxReleasePages {
		maxPages = maxReleasePages
	}
	opts := &gh.ListOptions{PerPage: perPage}
	for pages < maxPages {
		list, resp, err := c.gh.Repositories.ListReleases(ctx, seg(owner), seg(repo), opts)
		if err = apiErr(resp, err); err != nil {
			if isNotFound(err) {
				err = fmt.Errorf("%w: %w", github.ErrNotFound, err)
			}
			return pages, false, fmt.Errorf("github: releases of %s/%s (page %d): %w", owner, repo, max(opts.Page, 1), err)
		}
		pages++
		page := make([]github.Release, 0, len(list))
		for _, r := range list {
			page = append(page, releaseOf(r))
		}
		if !more(page) || resp.NextPage == 0 {
			return pages, true, nil
		}
		opts.Page = resp.NextPage
	}
	return pages, false, nil
}
