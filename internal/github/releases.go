package github

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Release is a GitHub release.
type Release struct {
	ID         int64
	TagName    string
	Name       string
	Body       string
	Draft      bool
	Prerelease bool
	URL        string // the release's page on GitHub
	CreatedAt  time.Time
}

// releaseJSON holds the fields of a release the client reads.
type releaseJSON struct {
	ID              int64     `json:"id"`
	TagName         string    `json:"tag_name"`
	TargetCommitish string    `json:"target_commitish"`
	Name            string    `json:"name"`
	Body            string    `json:"body"`
	Draft           bool      `json:"draft"`
	Prerelease      bool      `json:"prerelease"`
	HTMLURL         string    `json:"html_url"`
	CreatedAt       time.Time `json:"created_at"`
}

func releaseOf(r releaseJSON) Release {
	return Release{
		ID: r.ID, TagName: r.TagName, Name: r.Name, Body: r.Body,
		Draft: r.Draft, Prerelease: r.Prerelease, URL: r.HTMLURL, CreatedAt: r.CreatedAt,
	}
}

// releasePage reads one page (the first when page is 0) of the repository's releases,
// newest first, and returns the number of the next page, 0 after the last.
func (c *Client) releasePage(ctx context.Context, owner, repo string, perPage, page int) ([]releaseJSON, int, error) {
	var list []releaseJSON
	resp, err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "releases"), pageQuery(perPage, page), nil, &list)
	if err != nil {
		return nil, 0, err
	}
	return list, nextPage(resp.Header), nil
}

// releasePath is the API path of one release.
func releasePath(owner, repo string, id int64) string {
	return repoPath(owner, repo, "releases/"+strconv.FormatInt(id, 10))
}

// maxReleasePages bounds the listing (100 per page), so a misbehaving server cannot keep
// the client paging forever.
const maxReleasePages = 100

// Releases lists every release the token can see, newest first, 100 per page. Drafts
// appear only for tokens with push access, as GitHub shows them.
func (c *Client) Releases(ctx context.Context, owner, repo string) ([]Release, error) {
	list, err := c.allReleases(ctx, owner, repo)
	if err != nil {
		return nil, err
	}
	out := make([]Release, 0, len(list))
	for _, r := range list {
		out = append(out, releaseOf(r))
	}
	return out, nil
}

// allReleases pages through every release, as GitHub returns them.
func (c *Client) allReleases(ctx context.Context, owner, repo string) ([]releaseJSON, error) {
	var out []releaseJSON
	page := 0
	for range maxReleasePages {
		list, next, err := c.releasePage(ctx, owner, repo, 100, page)
		if err != nil {
			return nil, fmt.Errorf("github: releases of %s/%s (page %d): %w", owner, repo, max(page, 1), apiErr(err))
		}
		out = append(out, list...)
		if next == 0 {
			return out, nil
		}
		page = next
	}
	return nil, fmt.Errorf("github: releases of %s/%s: more than %d pages", owner, repo, maxReleasePages)
}

// ReleaseByTag returns the published release of a tag; found is false when there is
// none. GitHub never finds drafts by tag.
func (c *Client) ReleaseByTag(ctx context.Context, owner, repo, tag string) (Release, bool, error) {
	var r releaseJSON
	_, err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "releases/tags/"+seg(tag)), nil, nil, &r)
	if isNotFound(err) {
		return Release{}, false, nil
	}
	if err != nil {
		return Release{}, false, fmt.Errorf("github: release of tag %s in %s/%s: %w", tag, owner, repo, apiErr(err))
	}
	return releaseOf(r), true, nil
}

// NewRelease describes a release to create.
type NewRelease struct {
	TagName         string
	TargetCommitish string
	Name            string
	Body            string
	Draft           bool
	Prerelease      bool
	// MakeLatest is "true", "false" or "legacy" (GitHub's string enum); empty leaves
	// GitHub's default.
	MakeLatest string
}

// CreateRelease creates a release. It is a write: it is sent once; wrap it in
// WriteThenVerify to converge when the outcome is unknown. A published release of the
// same tag makes it fail with an error wrapping ErrAlreadyExists.
func (c *Client) CreateRelease(ctx context.Context, owner, repo string, nr NewRelease) (Release, error) {
	// Name, body and the flags are always sent, empty or false included; an empty target
	// or make_latest is left out so that GitHub applies its defaults (the default branch;
	// "true" for a published release).
	in := struct {
		TagName         string `json:"tag_name"`
		TargetCommitish string `json:"target_commitish,omitempty"`
		Name            string `json:"name"`
		Body            string `json:"body"`
		Draft           bool   `json:"draft"`
		Prerelease      bool   `json:"prerelease"`
		MakeLatest      string `json:"make_latest,omitempty"` // GitHub's enum: "true", "false" or "legacy"
	}{nr.TagName, nr.TargetCommitish, nr.Name, nr.Body, nr.Draft, nr.Prerelease, nr.MakeLatest}
	var r releaseJSON
	_, err := c.do(ctx, http.MethodPost, repoPath(owner, repo, "releases"), nil, in, &r)
	if err != nil {
		if alreadyExists(err) {
			err = fmt.Errorf("%w: %w", ErrAlreadyExists, err)
		}
		return Release{}, fmt.Errorf("github: create release %s in %s/%s: %w", nr.TagName, owner, repo, apiErr(err))
	}
	return releaseOf(r), nil
}
