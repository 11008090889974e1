package githubclient

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v84/github"

	"dagger/shipyard/internal/github"
)

func pinnedOf(r *gh.RepositoryRelease) github.PinnedRelease {
	return github.PinnedRelease{Release: releaseOf(r), TargetCommitish: r.GetTargetCommitish()}
}

// PinnedReleases lists every release the token can see with its target, newest first, 100
// per page: one listing answers both which versions are taken and where each draft points.
func (c *Client) PinnedReleases(ctx context.Context, owner, repo string) ([]github.PinnedRelease, error) {
	list, err := c.allReleases(ctx, owner, repo)
	if err != nil {
		return nil, err
	}
	out := make([]github.PinnedRelease, 0, len(list))
	for _, r := range list {
		out = append(out, pinnedOf(r))
	}
	return out, nil
}

// ReleaseByID returns one release, drafts included for tokens with push access; found is
// false when GitHub reports none (deleted, or a draft the token may not see).
func (c *Client) ReleaseByID(ctx context.Context, owner, repo string, id int64) (github.PinnedRelease, bool, error) {
	r, resp, err := c.gh.Repositories.GetRelease(ctx, seg(owner), seg(repo), id)
	err = apiErr(resp, err)
	if isNotFound(err) {
		return github.PinnedRelease{}, false, nil
	}
	if err != nil {
		return github.PinnedRelease{}, false, fmt.Errorf("github: release %d of %s/%s: %w", id, owner, repo, err)
	}
	return pinnedOf(r), true, nil
}

// EditRelease changes a release. It is a write, sent once (see WriteThenVerify). Publishing
// over a published release of the same tag fails with an error wrapping ErrAlreadyExists;
// a release that is gone fails with one wrapping ErrNotFound.
func (c *Client) EditRelease(ctx context.Context, owner, repo string, id int64, e github.ReleaseEdit) (github.PinnedRelease, error) {
	in := &gh.RepositoryRelease{
		TagName: e.TagName, TargetCommitish: e.TargetCommitish, Name: e.Name, Body: e.Body, Draft: e.Draft,
	}
	if e.MakeLatest != "" {
		in.MakeLatest = &e.MakeLatest
	}
	r, resp, err := c.gh.Repositories.EditRelease(ctx, seg(owner), seg(repo), id, in)
	if err = apiErr(resp, err); err != nil {
		switch {
		case github.IsAlreadyExists(err):
			err = fmt.Errorf("%w: %w", github.ErrAlreadyExists, err)
		case isNotFound(err):
			err = fmt.Errorf("%w: %w", github.ErrNotFound, err)
		}
		return github.PinnedRelease{}, fmt.Errorf("github: edit release %d of %s/%s: %w", id, owner, repo, err)
	}
	return pinnedOf(r), nil
}

// DeleteRelease deletes a release (its tag, if any, stays). A release that is already gone
// fails with an error wrapping ErrNotFound, which callers converging on "deleted" accept.
func (c *Client) DeleteRelease(ctx context.Context, owner, repo string, id int64) error {
	resp, err := c.gh.Repositories.DeleteRelease(ctx, seg(owner), seg(repo), id)
	if err = apiErr(resp, err); err != nil {
		if isNotFound(err) {
			err = fmt.Errorf("%w: %w", github.ErrNotFound, err)
		}
		return fmt.Errorf("github: delete release %d of %s/%s: %w", id, owner, repo, err)
	}
	return nil
}

// maxTagPages bounds the tag listing (100 per page).
const maxTagPages = 100

// TagNames lists the names of every tag of the repository, 100 per page, in GitHub's order.
func (c *Client) TagNames(ctx context.Context, owner, repo string) ([]string, error) {
	var out []string
	opts := &gh.ListOptions{PerPage: 100}
	for range maxTagPages {
		page, resp, err := c.gh.Repositories.ListTags(ctx, seg(owner), seg(repo), opts)
		if err = apiErr(resp, err); err != nil {
			return nil, fmt.Errorf("github: tags of %s/%s (page %d): %w", owner, repo, max(opts.Page, 1), err)
		}
		for _, t := range page {
			out = append(out, t.GetName())
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
	return nil, fmt.Errorf("github: tags of %s/%s: more than %d pages", owner, repo, maxTagPages)
}
