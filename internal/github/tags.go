package github

import (
	"context"
	"fmt"
)

// TagKind tells annotated tags (a tag object) from lightweight ones (a bare ref).
type TagKind string

// Tag kinds.
const (
	TagLightweight TagKind = "lightweight"
	TagAnnotated   TagKind = "annotated"
)

// Verification is GitHub's check of a tag object's signature.
type Verification struct {
	Verified bool
	// Reason is GitHub's reason, e.g. "valid", "unsigned", "unknown_key".
	Reason string
}

// Tag is what a tag ref resolves to.
type Tag struct {
	Name string
	Kind TagKind
	// ObjectSHA is the tag object's SHA (annotated tags only).
	ObjectSHA string
	// TargetType is the type of the object finally tagged: "commit" normally, "tree" or
	// "blob" for unusual tags.
	TargetType string
	// CommitSHA is the tagged commit, empty when TargetType is not "commit".
	CommitSHA string
	// Verification is the signature check of the tag object (annotated tags only).
	Verification Verification
}

// maxTagDepth bounds how many tag objects (a tag of a tag …) are followed.
const maxTagDepth = 4

// TagRef resolves refs/tags/<tag>; found is false when the tag does not exist.
func (c *Client) TagRef(ctx context.Context, owner, repo, tag string) (Tag, bool, error) {
	ref, resp, err := c.gh.Git.GetRef(ctx, seg(owner), seg(repo), "tags/"+tag)
	err = apiErr(resp, err)
	if isNotFound(err) {
		return Tag{}, false, nil
	}
	if err != nil {
		return Tag{}, false, fmt.Errorf("github: tag ref %s of %s/%s: %w", tag, owner, repo, err)
	}
	t := Tag{Name: tag, Kind: TagLightweight}
	obj := ref.GetObject()
	if obj.GetType() == "tag" {
		t.Kind, t.ObjectSHA = TagAnnotated, obj.GetSHA()
	}
	for depth := 0; obj.GetType() == "tag"; depth++ {
		if depth == maxTagDepth {
			return Tag{}, false, fmt.Errorf("github: tag %s of %s/%s: more than %d nested tag objects", tag, owner, repo, maxTagDepth)
		}
		tobj, resp, err := c.gh.Git.GetTag(ctx, seg(owner), seg(repo), seg(obj.GetSHA()))
		if err = apiErr(resp, err); err != nil {
			return Tag{}, false, fmt.Errorf("github: tag object %s of %s/%s: %w", obj.GetSHA(), owner, repo, err)
		}
		if depth == 0 {
			v := tobj.GetVerification()
			t.Verification = Verification{Verified: v.GetVerified(), Reason: v.GetReason()}
		}
		obj = tobj.GetObject()
	}
	t.TargetType = obj.GetType()
	if t.TargetType == "commit" {
		t.CommitSHA = obj.GetSHA()
	}
	return t, true, nil
}
