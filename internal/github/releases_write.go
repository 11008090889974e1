package github

import (
	"context"
	"fmt"
	"net/http"
)

// PinnedRelease is a release with the commitish it targets. For a draft that is where its
// tag will be created on publication, so a flow that pins drafts to exact commits (model
// releases) needs it to tell its own draft from a stale one.
type PinnedRelease struct {
	Release
	TargetCommitish string
}

func pinnedOf(r releaseJSON) PinnedRelease {
	return PinnedRelease{Release: releaseOf(r), TargetCommitish: r.TargetCommitish}
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
	var r releaseJSON
	_, err := c.do(ctx, http.MethodGet, releasePath(owner, repo, id), nil, nil, &r)
	if isNotFound(err) {
		return PinnedRelease{}, false, nil
	}
	if err != nil {
		return PinnedRelease{}, false, fmt.Errorf("github: release %d of %s/%s: %w", id, owner, repo, apiErr(err))
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
	// nil fields are left out, so GitHub leaves them as they are.
	in := struct {
		TagName         *string `json:"tag_name,omitempty"`
		TargetCommitish *string `json:"target_commitish,omitempty"`
		Name            *string `json:"name,omitempty"`
		Body            *string `json:"body,omitempty"`
		Draft           *bool   `json:"draft,omitempty"`
		MakeLatest      string  `json:"make_latest,omitempty"` // GitHub's enum: "true", "false" or "legacy"
	}{e.TagName, e.TargetCommitish, e.Name, e.Body, e.Draft, e.MakeLatest}
	var r releaseJSON
	_, err := c.do(ctx, http.MethodPatch, releasePath(owner, repo, id), nil, in, &r)
	if err != nil {
		switch {
		case alreadyExists(err):
			err = fmt.Errorf("%w: %w", ErrAlreadyExists, err)
		case isNotFound(err):
			err = fmt.Errorf("%w: %w", ErrNotFound, err)
		}
		return PinnedRelease{}, fmt.Errorf("github: edit release %d of %s/%s: %w", id, owner, repo, apiErr(err))
	}
	return pinnedOf(r), nil
}

// DeleteRelease deletes a release (its tag, if any, stays). A release that is already gone
// fails with an error wrapping ErrNotFound, which callers converging on "deleted" accept.
func (c *Client) DeleteRelease(ctx context.Context, owner, repo string, id int64) error {
	_, err := c.do(ctx, http.MethodDelete, releasePath(owner, repo, id), nil, nil, nil)
	if err != nil {
		if isNotFound(err) {
			err = fmt.Errorf("%w: %w", ErrNotFound, err)
		}
		return fmt.Errorf("github: delete release %d of %s/%s: %w", id, owner, repo, apiErr(err))
	}
	return nil
}

// maxTagPages bounds the tag listing (100 per page).
const maxTagPages = 100

// TagNames lists the names of every tag of the repository, 100 per page, in GitHub's order.
func (c *Client) TagNames(ctx context.Context, owner, repo string) ([]string, error) {
	var out []string
	page := 0
	for range maxTagPages {
		var list []struct {
			Name string `json:"name"`
		}
		resp, err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "tags"), pageQuery(100, page), nil, &list)
		if err != nil {
			return nil, fmt.Errorf("github: tags of %s/%s (page %d): %w", owner, repo, max(page, 1), apiErr(err))
		}
		for _, t := range list {
			out = append(out, t.Name)
		}
		next := nextPage(resp.Header)
		if next == 0 {
			return out, nil
		}
		page = next
	}
	return nil, fmt.Errorf("github: tags of %s/%s: more than %d pages", owner, repo, maxTagPages)
}
