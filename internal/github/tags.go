package github

import (
	"context"
	"fmt"
	"net/http"
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
	obj, err := c.getRef(ctx, owner, repo, "tags/"+tag)
	if isNotFound(err) {
		return Tag{}, false, nil
	}
	if err != nil {
		return Tag{}, false, fmt.Errorf("github: tag ref %s of %s/%s: %w", tag, owner, repo, apiErr(err))
	}
	t := Tag{Name: tag, Kind: TagLightweight}
	if obj.Type == "tag" {
		t.Kind, t.ObjectSHA = TagAnnotated, obj.SHA
	}
	for depth := 0; obj.Type == "tag"; depth++ {
		if depth == maxTagDepth {
			return Tag{}, false, fmt.Errorf("github: tag %s of %s/%s: more than %d nested tag objects", tag, owner, repo, maxTagDepth)
		}
		var tobj struct {
			Object       gitObjectJSON `json:"object"`
			Verification struct {
				Verified bool   `json:"verified"`
				Reason   string `json:"reason"`
			} `json:"verification"`
		}
		if _, err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "git/tags/"+seg(obj.SHA)), nil, nil, &tobj); err != nil {
			return Tag{}, false, fmt.Errorf("github: tag object %s of %s/%s: %w", obj.SHA, owner, repo, apiErr(err))
		}
		if depth == 0 {
			t.Verification = Verification{Verified: tobj.Verification.Verified, Reason: tobj.Verification.Reason}
		}
		obj = tobj.Object
	}
	t.TargetType = obj.Type
	if t.TargetType == "commit" {
		t.CommitSHA = obj.SHA
	}
	return t, true, nil
}
