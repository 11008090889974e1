package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// PushByDigest writes img to <repo>@<digest> and returns the digest. No tag
// is created or moved: tags are a later, separate step (ApplyTags) that runs
// only after the digest was scanned and signed. Pushing an image the
// registry already has is a no-op (one HEAD request).
//
// Afterwards it checks that the digest resolves and that no tag appeared on
// it. Tags that appeared on other digests meanwhile are another publisher's
// and are left alone.
func PushByDigest(ctx context.Context, repo string, img v1.Image, auth Auth, opts ...Option) (string, error) {
	d, err := pushByDigest(ctx, repo, img, auth, opts)
	if err != nil {
		return "", auth.Scrub(fmt.Errorf("push by digest to %s: %w", repo, err))
	}
	return d, nil
}

// PushPathByDigest is PushByDigest for an image file or directory in one of
// the formats OpenImage reads.
func PushPathByDigest(ctx context.Context, repo, path string, auth Auth, opts ...Option) (string, error) {
	img, _, err := OpenImage(path)
	if err != nil {
		return "", fmt.Errorf("push by digest to %s: %w", repo, err)
	}
	return PushByDigest(ctx, repo, img, auth, opts...)
}

func pushByDigest(ctx context.Context, repo string, img v1.Image, auth Auth, opts []Option) (string, error) {
	if img == nil {
		return "", errors.New("no image given")
	}
	r, c, err := connect(parseRepository, repo, auth, opts)
	if err != nil {
		return "", err
	}
	mt, err := img.MediaType()
	if err != nil {
		return "", fmt.Errorf("image media type: %w", err)
	}
	if !mt.IsImage() {
		return "", fmt.Errorf("media type %s is not a single image manifest", mt)
	}
	h, err := img.Digest()
	if err != nil {
		return "", fmt.Errorf("image digest: %w", err)
	}
	return c.pushManifest(ctx, r, h, img)
}

// pushManifest writes m (an image or an index, whose digest is h) to r@h unless the
// registry has it already, then checks that it resolves and that no tag appeared on it.
func (c *client) pushManifest(ctx context.Context, r name.Repository, h v1.Hash, m remote.Taggable) (string, error) {
	ref := r.Digest(h.String())

	// Re-runs land here: the manifest is only written once its blobs (and, for an
	// index, its platform manifests) are all present, so an existing manifest means
	// the whole image is there.
	switch desc, err := c.puller.Head(ctx, ref); {
	case err == nil && desc.Digest == h:
		return h.String(), nil
	case err == nil:
		return "", fmt.Errorf("registry answered %s for %s", desc.Digest, ref)
	case !isNotFound(err):
		return "", fmt.Errorf("check for %s: %w", ref, err)
	}

	before, err := c.listTags(ctx, r)
	if err != nil {
		return "", err
	}
	if err := c.pusher.Push(ctx, ref, m); err != nil {
		return "", fmt.Errorf("write %s: %w", ref, err)
	}
	desc, err := c.puller.Head(ctx, ref)
	if err != nil {
		return "", fmt.Errorf("verify %s after writing: %w", ref, err)
	}
	if desc.Digest != h {
		return "", fmt.Errorf("verify %s after writing: registry answered %s", ref, desc.Digest)
	}
	if err := c.checkNoNewTagOn(ctx, r, h.String(), before); err != nil {
		return "", err
	}
	return h.String(), nil
}

// checkNoNewTagOn fails if a tag that was not in before now points at digest.
// Only the new tags are resolved, so the check costs one list request in the
// usual case.
func (c *client) checkNoNewTagOn(ctx context.Context, repo name.Repository, digest string, before []string) error {
	after, err := c.listTags(ctx, repo)
	if err != nil {
		return err
	}
	had := make(map[string]bool, len(before))
	for _, t := range before {
		had[t] = true
	}
	var added []string
	for _, t := range after {
		if !had[t] {
			added = append(added, t)
		}
	}
	if len(added) == 0 {
		return nil
	}
	if len(added) > MaxTagsResolved {
		return fmt.Errorf("%d tags appeared during the push; cannot confirm none is on %s", len(added), digest)
	}
	resolved, err := c.resolve(ctx, repo, added)
	if err != nil {
		return fmt.Errorf("check tags that appeared during the push: %w", err)
	}
	var onDigest []string
	for _, t := range added {
		if resolved[t] == digest {
			onDigest = append(onDigest, t)
		}
	}
	if len(onDigest) > 0 {
		return fmt.Errorf("tag(s) %s appeared on %s during a push by digest", strings.Join(onDigest, ", "), digest)
	}
	return nil
}
