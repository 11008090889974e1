package githubclient

import (
	"context"
	"fmt"

	"dagger/shipyard/internal/github"
)

// maxTagDepth bounds how many tag objects (a tag of a tag …) are followed.
const maxTagDepth = 4

// TagRef resolves refs/tags/<tag>; found is false when the tag does not exist.
func (c *Client) TagRef(ctx context.Context, owner, repo, tag string) (github.Tag, bool, error) {
	ref, resp, err := c.gh.Git.GetRef(ctx, seg(owner), seg(repo), "tags/"+tag)
	err = apiErr(resp, err)
	if isNotFound(err) {
		return github.Tag{}, false, nil
	}
	if err != nil {
		return github.Tag{}, false, fmt.Errorf("github: tag ref %s of %s/%s: %w", tag, owner, repo, err)
	}
	t := github.Tag{Name: tag, Kind: github.TagLightweight}
	obj := ref.GetObject()
	if obj.GetType() == "tag" {
		t.Kind, t.ObjectSHA = github.TagAnnotated, obj.GetSHA()
	}
	for depth := 0; obj.GetType() == "tag"; depth++ {
		if depth == maxTagDepth {
			return github.Tag{}, false, fmt.Errorf("github: tag %s of %s/%s: more than %d nested tag objects", tag, owner, repo, maxTagDepth)
		}
		tobj, resp, err := c.gh.Git.GetTag(ctx, seg(owner), seg(repo), seg(obj.GetSHA()))
		if err = apiErr(resp, err); err != nil {
			return github.Tag{}, false, fmt.Errorf("github: tag object %s of %s/%s: %w", obj.GetSHA(), owner, repo, err)
		}
		if depth == 0 {
			v := tobj.GetVerification()
			t.Verification = github.Verification{Verified: v.GetVerified(), Reason: v.GetReason()}
		}
		obj = tobj.GetObject()
	}
	t.TargetType = obj.GetType()
	if t.TargetType == "commit" {
		t.CommitSHA = obj.GetSHA()
	}
	return t, true, nil
}
