package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v84/github"
)

// PinnedRelease is a release with the commitish it targets. For a draft that is where its
// tag will be created on publication, so a flow that pins drafts to exact commits (model
// releases) needs it to tell its own draft from a stale one.
type PinnedRelease struct {
	Release
	TargetCommitish string
}

func pinnedOf(r *gh.RepositoryRelease) PinnedRelease {
	return PinnedRelease{Release: releaseOf(r), TargetCommitish: r.GetTargetCommitish()}
}

// PinnedReleases lists every release the token can see with its target, newest first, 100
// per page: one listing answers both which versions are taken and where each draft points.
func (c *Client) PinnedReleases(ctx context.Context, owner, repo string) ([]PinnedRelease, error) {
	list, err := c.allReleases(ctx, owner, repo)
	if err != nil {
		return nil, err
	}
	out := make([]PinnedRelease, 0, len(list))
	for _, r := range list {
		out = append(out, pinnedOf(r))
	}
	return out, nil
}

// ReleaseByID returns one release, drafts included for tokens with push access; found is
// false when GitHub reports none (deleted, or a draft the token may not see).
func (c *Client) ReleaseByID(ctx context.Context, owner, repo string, id int64) (PinnedRelease, bool, error) {
	r, resp, err := c.gh.Repositories.GetRelease(ctx, seg(owner), seg(repo), id)
	err = apiErr(resp, err)
	if isNotFound(err) {
		return PinnedRelease{}, false, nil
	}
	if err != nil {
		return PinnedRelease{}, false, fmt.Errorf("github: release %d of %s/%s: %w", id, owner, repo, err)
	}
	return pinnedOf(r), true, nil
}

// ReleaseEdit lists the fields of a release to change; nil fields stay as they are.
type ReleaseEdit struct {
	TagName         *string
	TargetCommitish *string
	Name            *string
	Body            *string
	// Draft false publishes a draft; GitHub then creates its tag at the target when the
	// tag does not exist yet.
	Draft *bool
	// MakeLatest is "true", "false" or "legacy"; empty leaves GitHub's default.
	MakeLatest string
}

// EditRelease changes a release. It is a write, sent once (see WriteThenVerify). Publishing
// over a published release of the same tag fails with an error wrapping ErrAlreadyExists;
// a release that is gone fails with one wrapping ErrNotFound.
func (c *Client) EditRelease(ctx context.Context, owner, repo string, id int64, e ReleaseEdit) (PinnedRelease, error) {
	in := &gh.RepositoryRelease{
		TagName: e.TagName, TargetCommitish: e.TargetCommitish, Name: e.Name, Body: e.Body, Draft: e.Draft,
	}
	if e.MakeLatest != "" {
		in.MakeLatest = &e.MakeLatest
	}
	r, resp, err := c.gh.Repositories.EditRelease(ctx, seg(owner), seg(repo), id, in)
	if err = apiErr(resp, err); err != nil {
		switch {
		case alreadyExists(err):
			err = fmt.Errorf("%w: %w", ErrAlreadyExists, err)
		case isNotFound(err):
			err = fmt.Errorf("%w: %w", ErrNotFound, err)
		}
		return PinnedRelease{}, fmt.Errorf("github: edit release %d of %s/%s: %w", id, owner, repo, err)
	}
	return pinnedOf(r), nil
}

// DeleteRelease deletes a release (its tag, if any, stays). A release that is already gone
// fails with an error wrapping ErrNotFound, which callers converging on "deleted" accept.
func (c *Client) DeleteRelease(ctx context.Context, owner, repo string, id int64) error {
	resp, err := c.gh.Repositories.DeleteRelease(ctx, seg(owner), seg(repo), id)
	if err = apiErr(resp, err); err != nil {
		if isNotFound(err) {
			err = fmt.Errorf("%w: %w", ErrNotFound, err)
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
