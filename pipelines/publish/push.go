package publish

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/registry"
	"dagger/shipyard/pipelines/ci"
)

// PushByDigest pushes each image to <registry>/<org>/<repository> by digest, untagged: it
// exports the container as an OCI tarball into workdir (in a module, the function's own
// filesystem) and writes it with internal/registry, which neither creates nor moves a tag
// and checks afterwards that none appeared on the digest. The manifest bytes are pushed as
// the engine wrote them, so the digest is the engine's.
//
// An image the registry already has costs one HEAD request, so a re-run after a failure
// pushes only what is missing. Every image is attempted; the error names each that failed.
func PushByDigest(ctx context.Context, images []ci.Image, t Target, workdir string) ([]Pushed, error) {
	if err := t.check(); err != nil {
		return nil, fmt.Errorf("push-by-digest: %w", err)
	}
	if len(images) == 0 {
		return nil, errors.New("push-by-digest: no images to push")
	}
	if workdir == "" {
		return nil, errors.New("push-by-digest: no work directory for the image tarballs")
	}
	out := make([]Pushed, len(images))
	err := fanout.Each(ctx, 0, len(images), func(ctx context.Context, i int) error {
		img := images[i]
		repo := t.Repository(img)
		if len(img.Variants) > 0 {
			var err error
			out[i], err = pushIndex(ctx, img, repo, t, workdir)
			return err
		}
		tarball := filepath.Join(workdir, img.Spec.Name+".oci.tar")
		if _, err := img.Container.Export(ctx, tarball); err != nil {
			return fmt.Errorf("push-by-digest %s: exporting the image as an OCI tarball: %w", img.Spec.Name, err)
		}
		// The tarball is as large as the image: it goes as soon as it is pushed.
		defer os.Remove(tarball)
		digest, err := registry.PushPathByDigest(ctx, repo, tarball, t.Auth, t.RegistryOptions...)
		if err != nil {
			return fmt.Errorf("push-by-digest %s: %w (nothing was tagged; re-run the step, layers already pushed are not sent again)", img.Spec.Name, err)
		}
		out[i] = Pushed{Name: img.Spec.Name, Repository: repo, Digest: digest}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// pushIndex exports each platform's image as an OCI tarball, then pushes them with the OCI
// image index that lists them, by digest: the index is what is scanned per platform,
// attested, signed and tagged.
func pushIndex(ctx context.Context, img ci.Image, repo string, t Target, workdir string) (Pushed, error) {
	idx, platforms, cleanup, err := exportIndex(ctx, img, workdir)
	// The tarballs stay until the index is written: the layers are read from them as they
	// are sent.
	defer cleanup()
	if err != nil {
		return Pushed{}, err
	}
	digest, err := registry.PushIndexByDigest(ctx, repo, idx, t.Auth, t.RegistryOptions...)
	if err != nil {
		return Pushed{}, fmt.Errorf("push-by-digest %s: %w (nothing was tagged; re-run the step, images already pushed are not sent again)", img.Spec.Name, err)
	}
	return Pushed{Name: img.Spec.Name, Repository: repo, Digest: digest, Platforms: platforms}, nil
}

// BuiltIndex is the digest of the index push-by-digest would push for img, a
// multi-platform image, and its platform images' digests, without pushing: what a release's
// dry run reports.
func BuiltIndex(ctx context.Context, img ci.Image, workdir string) (string, []PlatformDigest, error) {
	idx, platforms, cleanup, err := exportIndex(ctx, img, workdir)
	defer cleanup()
	if err != nil {
		return "", nil, err
	}
	h, err := idx.Digest()
	if err != nil {
		return "", nil, fmt.Errorf("image %s: index digest: %w", img.Spec.Name, err)
	}
	return h.String(), platforms, nil
}

// exportIndex exports each platform's image of img into workdir and builds the index that
// lists them; cleanup removes the tarballs, which the index reads its layers from.
func exportIndex(ctx context.Context, img ci.Image, workdir string) (v1.ImageIndex, []PlatformDigest, func(), error) {
	var tarballs []string
	cleanup := func() {
		for _, tb := range tarballs {
			os.Remove(tb)
		}
	}
	images := make([]v1.Image, len(img.Variants))
	for i, v := range img.Variants {
		tarball := filepath.Join(workdir, ci.ReportFile(ci.PlatformTargetName(img.Spec.Name, v.Platform))+".oci.tar")
		if _, err := v.Container.Export(ctx, tarball); err != nil {
			return nil, nil, cleanup, fmt.Errorf("push-by-digest %s (%s): exporting the image as an OCI tarball: %w", img.Spec.Name, v.Platform, err)
		}
		tarballs = append(tarballs, tarball)
		pimg, _, err := registry.OpenImage(tarball)
		if err != nil {
			return nil, nil, cleanup, fmt.Errorf("push-by-digest %s (%s): %w", img.Spec.Name, v.Platform, err)
		}
		images[i] = pimg
	}
	p, err := PlatformsOf(img, images)
	if err != nil {
		return nil, nil, cleanup, fmt.Errorf("push-by-digest %s: %w", img.Spec.Name, err)
	}
	idx, err := registry.NewIndex(images)
	if err != nil {
		return nil, nil, cleanup, fmt.Errorf("push-by-digest %s: %w", img.Spec.Name, err)
	}
	return idx, p, cleanup, nil
}

// PlatformsOf pairs each platform the image was built for with the digest of the image
// the engine wrote for it, and refuses an image whose config names another platform: the
// index must say what each image runs on.
func PlatformsOf(img ci.Image, images []v1.Image) ([]PlatformDigest, error) {
	out := make([]PlatformDigest, len(images))
	for i, pimg := range images {
		want := img.Variants[i].Platform
		got, err := registry.PlatformOf(pimg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", want, err)
		}
		if got.String() != string(want) {
			return nil, fmt.Errorf("the image built for %s says it is for %q in its config", want, got.String())
		}
		h, err := pimg.Digest()
		if err != nil {
			return nil, fmt.Errorf("%s: image digest: %w", want, err)
		}
		out[i] = PlatformDigest{Platform: string(want), Digest: h.String()}
	}
	return out, nil
}
