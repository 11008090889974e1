package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"dagger/shipyard/supplychain/wire"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// CheckPlatforms is the rule for the platforms of a multi-platform image: at least one,
// each with an OS and an architecture, none twice. A platform listed twice would let a
// client pull either image for it, so the scan of one would not cover what runs.
func CheckPlatforms(platforms []v1.Platform) error {
	if len(platforms) == 0 {
		return errors.New("an image index needs at least one platform image")
	}
	seen := map[string]bool{}
	var errs []error
	for i, p := range platforms {
		if p.OS == "" || p.Architecture == "" {
			errs = append(errs, fmt.Errorf("platform image %d has no OS or architecture in its config (%q); build it for a platform such as linux/amd64", i, p.String()))
			continue
		}
		key := p.String()
		if seen[key] {
			errs = append(errs, fmt.Errorf("platform %s is given twice; build each platform once", key))
		}
		seen[key] = true
	}
	return errors.Join(errs...)
}

// PlatformOf reads an image's platform from its config (os, architecture, variant, as
// buildkit writes them for the platform it built).
func PlatformOf(img v1.Image) (v1.Platform, error) {
	cf, err := img.ConfigFile()
	if err != nil {
		return v1.Platform{}, fmt.Errorf("image config: %w", err)
	}
	if p := cf.Platform(); p != nil {
		return *p, nil
	}
	return v1.Platform{}, nil
}

// NewIndex builds the OCI image index of images, one per platform, in the order given:
// each entry carries the platform its image's config names, so a client picks the image
// for its platform by reading the index alone.
func NewIndex(images []v1.Image) (v1.ImageIndex, error) {
	platforms := make([]v1.Platform, len(images))
	adds := make([]mutate.IndexAddendum, len(images))
	for i, img := range images {
		if img == nil {
			return nil, fmt.Errorf("platform image %d is missing", i)
		}
		mt, err := img.MediaType()
		if err != nil {
			return nil, fmt.Errorf("platform image %d: media type: %w", i, err)
		}
		if !mt.IsImage() {
			return nil, fmt.Errorf("platform image %d: media type %s is not a single image manifest", i, mt)
		}
		if platforms[i], err = PlatformOf(img); err != nil {
			return nil, fmt.Errorf("platform image %d: %w", i, err)
		}
		p := platforms[i]
		// manifestOnly: each entry is described by its manifest alone, wherever the image
		// was read from (a tarball, a registry), so one set of images gives one index.
		adds[i] = mutate.IndexAddendum{Add: manifestOnly{img}, Descriptor: v1.Descriptor{MediaType: mt, Platform: &p}}
	}
	if err := CheckPlatforms(platforms); err != nil {
		return nil, err
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	return mutate.AppendManifests(idx, adds...), nil
}

// manifestOnly hides any descriptor an image carries from where it was read (a registry's
// answer may add fields), so its index entry is computed from its manifest.
type manifestOnly struct{ v1.Image }

// IndexOfPushed builds the index of platform images already in repo, one per entry of
// platforms, in that order: each read by its digest (one manifest and one config request)
// and refused unless its config names the platform it is listed under. It is the index
// NewIndex builds of the same images before their push, so a release built per platform on
// native runners publishes what one job building every platform would.
func IndexOfPushed(ctx context.Context, repo string, platforms []PlatformDigest, auth Auth, opts ...Option) (v1.ImageIndex, error) {
	idx, err := indexOfPushed(ctx, repo, platforms, auth, opts)
	if err != nil {
		return nil, auth.Scrub(fmt.Errorf("assembling the index of %s: %w", repo, err))
	}
	return idx, nil
}

func indexOfPushed(ctx context.Context, repo string, platforms []PlatformDigest, auth Auth, opts []Option) (v1.ImageIndex, error) {
	if len(platforms) == 0 {
		return nil, errors.New("an image index needs at least one platform image")
	}
	r, c, err := connect(parseRepository, repo, auth, opts)
	if err != nil {
		return nil, err
	}
	images := make([]v1.Image, len(platforms))
	for i, pd := range platforms {
		if err := checkDigest(pd.Digest); err != nil {
			return nil, fmt.Errorf("%s: %w", pd.Platform, err)
		}
		desc, err := c.puller.Get(ctx, r.Digest(pd.Digest))
		if err != nil {
			return nil, fmt.Errorf("%s image %s: %w", pd.Platform, pd.Digest, err)
		}
		if desc.Digest.String() != pd.Digest {
			return nil, fmt.Errorf("%s image %s: registry answered with digest %s", pd.Platform, pd.Digest, desc.Digest)
		}
		if !desc.MediaType.IsImage() {
			return nil, fmt.Errorf("%s image %s: media type %s is not a single image manifest", pd.Platform, pd.Digest, desc.MediaType)
		}
		img, err := desc.Image()
		if err != nil {
			return nil, fmt.Errorf("%s image %s: %w", pd.Platform, pd.Digest, err)
		}
		got, err := PlatformOf(img)
		if err != nil {
			return nil, fmt.Errorf("%s image %s: %w", pd.Platform, pd.Digest, err)
		}
		if got.String() != pd.Platform {
			return nil, fmt.Errorf("the image %s handed over for %s says it is for %q in its config", pd.Digest, pd.Platform, got.String())
		}
		images[i] = img
	}
	return NewIndex(images)
}

// PushIndexByDigest writes idx, an index of single-platform images, to <repo>@<digest>
// with each platform image, and returns the index digest. Like PushByDigest it creates
// no tag, costs one HEAD request when the registry has the index already, and checks
// afterwards that no tag appeared on it. Tags then go on the index digest (ApplyTags,
// MoveLatest) under the same rules as a single image: a version tag never moves.
func PushIndexByDigest(ctx context.Context, repo string, idx v1.ImageIndex, auth Auth, opts ...Option) (string, error) {
	d, err := pushIndexByDigest(ctx, repo, idx, auth, opts)
	if err != nil {
		return "", auth.Scrub(fmt.Errorf("push index by digest to %s: %w", repo, err))
	}
	return d, nil
}

func pushIndexByDigest(ctx context.Context, repo string, idx v1.ImageIndex, auth Auth, opts []Option) (string, error) {
	if idx == nil {
		return "", errors.New("no image index given")
	}
	r, c, err := connect(parseRepository, repo, auth, opts)
	if err != nil {
		return "", err
	}
	if err := checkIndex(idx); err != nil {
		return "", err
	}
	h, err := idx.Digest()
	if err != nil {
		return "", fmt.Errorf("index digest: %w", err)
	}
	return c.pushManifest(ctx, r, h, idx)
}

// checkIndex refuses what PushIndexByDigest does not publish: an index of indexes, or
// entries without a platform or with one twice.
func checkIndex(idx v1.ImageIndex) error {
	mt, err := idx.MediaType()
	if err != nil {
		return fmt.Errorf("index media type: %w", err)
	}
	if !mt.IsIndex() {
		return fmt.Errorf("media type %s is not an image index", mt)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return fmt.Errorf("index manifest: %w", err)
	}
	_, err = ListedPlatforms(m)
	return err
}

// PlatformDigest is the wire's: a platform image an index lists.
type PlatformDigest = wire.PlatformDigest

// Platforms reads the manifest ref names, with one GET: for an image index, the platform
// image each entry lists, in its order; for a single image, none. A multi-platform image is
// scanned, attested and signed per platform, and a tag gives only the index digest, so every
// step that starts from a tag or a handed-over digest reads the platforms here rather than
// trusting a list that travelled with it. Entries the rule for indexes refuses (nested
// indexes, no platform, a platform twice) are an error; BuildKit's attestation manifests
// (platform unknown/unknown) are not images and are left out.
func Platforms(ctx context.Context, ref string, auth Auth, opts ...Option) ([]PlatformDigest, error) {
	out, err := platforms(ctx, ref, auth, opts)
	if err != nil {
		return nil, auth.Scrub(fmt.Errorf("reading the platforms of %s: %w", ref, err))
	}
	return out, nil
}

func platforms(ctx context.Context, ref string, auth Auth, opts []Option) ([]PlatformDigest, error) {
	r, c, err := connect(parseReference, ref, auth, opts)
	if err != nil {
		return nil, err
	}
	desc, err := c.puller.Get(ctx, r)
	if err != nil {
		return nil, err
	}
	if d, ok := r.(name.Digest); ok && d.DigestStr() != desc.Digest.String() {
		return nil, fmt.Errorf("registry answered with digest %s", desc.Digest)
	}
	if !desc.MediaType.IsIndex() {
		return nil, nil
	}
	m, err := v1.ParseIndexManifest(bytes.NewReader(desc.Manifest))
	if err != nil {
		return nil, fmt.Errorf("index manifest: %w", err)
	}
	return ListedPlatforms(m)
}

// ListedPlatforms is the platform images of an index manifest under the rule for indexes.
func ListedPlatforms(m *v1.IndexManifest) ([]PlatformDigest, error) {
	var out []PlatformDigest
	var listed []v1.Platform
	var nested []string
	for _, d := range m.Manifests {
		if d.Platform != nil && d.Platform.OS == "unknown" && d.Platform.Architecture == "unknown" {
			continue
		}
		if !d.MediaType.IsImage() {
			nested = append(nested, fmt.Sprintf("%s (%s)", d.Digest, d.MediaType))
			continue
		}
		p := v1.Platform{}
		if d.Platform != nil {
			p = *d.Platform
		}
		listed = append(listed, p)
		out = append(out, PlatformDigest{Platform: p.String(), Digest: d.Digest.String()})
	}
	if len(nested) > 0 {
		return nil, fmt.Errorf("the index lists %s, not single-platform image manifests", strings.Join(nested, ", "))
	}
	if err := CheckPlatforms(listed); err != nil {
		return nil, err
	}
	return out, nil
}
