package publish

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
	err := forEach(len(images), func(i int) error {
		img := images[i]
		repo := t.Repository(img)
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
