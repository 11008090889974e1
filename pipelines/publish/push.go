package publish

import (
	"context"
	"fmt"
	"strconv"

	"dagger/shipyard/internal/wire"

	"dagger.io/dagger"

	"dagger/shipyard/internal/fanout"
)

// PushByDigest pushes each image to <registry>/<org>/<repository> by digest, untagged: the
// registry command reads the container as an OCI tarball mounted into its own container
// (no export through the module) and writes it, neither creating nor moving a tag, and
// checks afterwards that none appeared on the digest. The manifest bytes are pushed as the
// engine wrote them, so the digest is the engine's. An image built for several platforms
// is pushed as the OCI image index of its platform images.
//
// An image the registry already has costs one HEAD request, so a re-run after a failure
// pushes only what is missing. Every image is attempted; the error names each that failed.
// fn is the function it is a call of, which names its flow in logs and errors.
func PushByDigest(ctx context.Context, fn string, images []Artifact, t Target) ([]Pushed, error) {
	s := &ImageState{Target: t, Built: images}
	if err := Alone(ctx, fn, s, StepPush); err != nil {
		return nil, err
	}
	return s.Pushed, nil
}

// pushAll pushes each image by digest, all at once; the error names each that failed.
func pushAll(ctx context.Context, images []Artifact, t Target) ([]Pushed, error) {
	out := make([]Pushed, len(images))
	err := fanout.Each(ctx, 0, len(images), func(ctx context.Context, i int) error {
		a := images[i]
		repo := t.Repository(a)
		call := pushCall(a, []string{"--repository", repo})
		call.about = repo
		var res wire.Pushed
		if err := t.runJSON(ctx, call, &res); err != nil {
			return fmt.Errorf("%s: %w (nothing was tagged; re-run the step, what was already pushed is not sent again)", a.Name, err)
		}
		out[i] = Pushed{Name: a.Name, Repository: repo, Digest: res.Digest, Platforms: res.Platforms}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// pushCall is the registry command's push of a: its tarball, or one per platform with
// the platform it was built for, mounted as files.
func pushCall(a Artifact, args []string) registryCall {
	call := registryCall{cmd: "push", args: args, files: map[string]*dagger.File{}}
	if len(a.Platforms) == 0 {
		path := imagesDir + "/" + a.Name + ".oci.tar"
		call.files[path] = a.Image
		call.args = append(call.args, "--image", path)
		return call
	}
	for i, v := range a.Platforms {
		path := imagesDir + "/" + a.Name + "-" + strconv.Itoa(i) + ".oci.tar"
		call.files[path] = v.Image
		call.args = append(call.args, "--image", path, "--platform", string(v.Platform))
	}
	return call
}

// BuiltDigest is the digest push-by-digest would push for img, and for a multi-platform
// image its platform images' digests, without pushing: what a release's dry run reports.
// It needs t's registry tool and nothing of the registry.
func BuiltDigest(ctx context.Context, t Target, a Artifact) (Pushed, error) {
	var res wire.Pushed
	if err := t.runJSON(ctx, pushCall(a, []string{"--dry-run"}), &res); err != nil {
		return Pushed{}, fmt.Errorf("image %s: %w", a.Name, err)
	}
	return Pushed{Name: a.Name, Digest: res.Digest, Platforms: res.Platforms}, nil
}
