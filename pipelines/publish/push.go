package publish

import (
	"context"
	"fmt"
	"strconv"

	"dagger.io/dagger"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/wire"
)

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

// BuiltDigest is the digest a push by digest would push for img, and for a multi-platform
// image its platform images' digests, without pushing: what a release's dry run reports.
// It needs t's registry tool and nothing of the registry.
func BuiltDigest(ctx context.Context, t Target, a Artifact) (Pushed, error) {
	var res wire.Pushed
	if err := t.runJSON(ctx, pushCall(a, []string{"--dry-run"}), &res); err != nil {
		return Pushed{}, fmt.Errorf("image %s: %w", a.Name, err)
	}
	return Pushed{Name: a.Name, Digest: res.Digest, Platforms: res.Platforms}, nil
}

// StepPush is the name of the step that pushes by digest.
const StepPush = functions.PushByDigest

var pushStep = imageStep{name: StepPush, writes: true, next: adviceUntagged, run: (*ImageState).push}

// push pushes the built images by digest, reusing the digest of those that carry ReuseTag,
// then checks that Version, if any, is on none of the repositories but on the digest just
// pushed.
func (s *ImageState) push(ctx context.Context) error {
	existing, err := s.reusable(ctx)
	if err != nil {
		return err
	}
	var build []Artifact
	for i, a := range s.Built {
		if existing[i] == "" {
			build = append(build, a)
		} else {
			s.Reused = append(s.Reused, a.Name)
		}
	}
	var fresh []Pushed
	if len(build) > 0 {
		if fresh, err = pushAll(ctx, build, s.Target); err != nil {
			return err
		}
	}
	pushed := make([]Pushed, 0, len(s.Built))
	for i, a := range s.Built {
		if existing[i] != "" {
			pushed = append(pushed, Pushed{Name: a.Name, Repository: s.Target.Repository(a), Digest: existing[i]})
			continue
		}
		pushed = append(pushed, fresh[0])
		fresh = fresh[1:]
	}
	if len(s.Reused) > 0 {
		// A reused digest may be an index: its platform images are scanned and signed too.
		if pushed, err = ResolvePlatforms(ctx, s.Target, pushed); err != nil {
			return err
		}
	}
	return s.keepPushed(ctx, pushed)
}

// reusable finds, per built image, the digest ReuseTag names already ("" for none). Builds
// are not always reproducible, so a re-run on a fresh engine may build another digest for
// the same commit; since the commit tag never moves and is written only after its digest
// was scanned, attested and signed, the digest it names is the commit's image.
func (s *ImageState) reusable(ctx context.Context) ([]string, error) {
	existing := make([]string, len(s.Built))
	if s.ReuseTag == "" {
		return existing, nil
	}
	err := fanout.Each(ctx, 0, len(s.Built), func(ctx context.Context, i int) error {
		repo := s.Target.Repository(s.Built[i])
		tags, err := s.Target.ResolveTags(ctx, repo, []string{s.ReuseTag})
		if err != nil {
			return fmt.Errorf("%s: looking for %s: %w", s.Built[i].Name, s.ReuseTag, err)
		}
		existing[i] = tags[s.ReuseTag]
		return nil
	})
	return existing, err
}
