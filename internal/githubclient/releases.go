package githubclient

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v84/github"

	"dagger/shipyard/internal/github"
)

func releaseOf(r *gh.RepositoryRelease) github.Release {
	return github.Release{
		ID: r.GetID(), TagName: r.GetTagName(), Name: r.GetName(), Body: r.GetBody(),
		Draft: r.GetDraft(), Prerelease: r.GetPrerelease(), URL: r.GetHTMLURL(), CreatedAt: r.GetCreatedAt().Time,
	}
}

// Releases lists every release the token can see, newest first, 100 per page. Drafts
// appear only for tokens with push access, as GitHub shows them.
func (c *Client) Releases(ctx context.Context, owner, repo string) ([]github.Release, error) {
	list, err := c.allReleases(ctx, owner, repo)
	if err != nil {
		return nil, err
	}
	out := make([]github.Release, 0, len(list))
	for _, r := range list {
		out = append(out, releaseOf(r))
	}
	return out, nil
}

// allReleases pages through every release, as GitHub returns them.
func (c *Client) allReleases(ctx context.Context, owner, repo string) ([]*gh.RepositoryRelease, error) {
	var out []*gh.RepositoryRelease
	opts := &gh.ListOptions{PerPage: 100}
	for range github.MaxReleasePages {
		page, resp, err := c.gh.Repositories.ListReleases(ctx, seg(owner), seg(repo), opts)
		if err = apiErr(resp, err); err != nil {
			return nil, fmt.Errorf("github: releases of %s/%s (page %d): %w", owner, repo, max(opts.Page, 1), err)
		}
		out = append(out, page...)
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
	return nil, fmt.Errorf("github: releases of %s/%s: more than %d pages", owner, repo, github.MaxReleasePages)
}

// ReleaseByTag returns the published release of a tag; found is false when there is
// none. GitHub never finds drafts by tag.
func (c *Client) ReleaseByTag(ctx context.Context, owner, repo, tag string) (github.Release, bool, error) {
	r, resp, err := c.gh.Repositories.GetReleaseByTag(ctx, seg(owner), seg(repo), seg(tag))
	err = apiErr(resp, err)
	if isNotFound(err) {
		return github.Release{}, false, nil
	}
	if err != nil {
		return github.Release{}, false, fmt.Errorf("github: release of tag %s in %s/%s: %w", tag, owner, repo, err)
	}
	return releaseOf(r), true, nil
}

// CreateRelease creates a release. It is a write: it is sent once; wrap it in
// WriteThenVerify to converge when the outcome is unknown. A published release of the
// same tag makes it fail with an error wrapping ErrAlreadyExists.
func (c *Client) CreateRelease(ctx context.Context, owner, repo string, nr github.NewRelease) (github.Release, error) {
	in := &gh.RepositoryRelease{
		TagName: &nr.TagName, Name: &nr.Name, Body: &nr.Body, Draft: &nr.Draft, Prerelease: &nr.Prerelease,
	}
	if nr.TargetCommitish != "" {
		in.TargetCommitish = &nr.TargetCommitish
	}
	if nr.MakeLatest != "" {
		in.MakeLatest = &nr.MakeLatest
	}
	r, resp, err := c.gh.Repositories.CreateRelease(ctx, seg(owner), seg(repo), in)
	if err = apiErr(resp, err); err != nil {
		if github.IsAlreadyExists(err) {
			err = fmt.Errorf("%w: %w", github.ErrAlreadyExists, err)
		}
		return github.Release{}, fmt.Errorf("github: create release %s in %s/%s: %w", nr.TagName, owner, repo, err)
	}
	return releaseOf(r), nil
}
