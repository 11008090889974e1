package release

import (
	"context"
	"dagger/shipyard/internal/buildplatform"
	"dagger/shipyard/internal/flow"
	"fmt"
	"slices"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/releasegate"
)

// Build builds every image of the tagged source with SETUPTOOLS_SCM_PRETEND_VERSION set to
// the version, and forces each build now, so a broken build fails here, before anything is
// pushed. The images found in containers/ must be exactly the plan's. p is the CI pipeline
// of the tagged source.
func Build(ctx context.Context, cfg Config, plan releasegate.Plan, p *ci.Pipeline) ([]ci.Image, error) {
	images, err := p.Images(ctx, plan.Version)
	if err == nil {
		err = sameImages(plan, images)
	}
	if err != nil {
		return nil, err
	}
	builds := platformBuilds(images)
	err = fanout.Each(ctx, 0, len(builds), func(ctx context.Context, i int) error {
		if _, err := builds[i].Container.Sync(ctx); err != nil {
			return fmt.Errorf("image %s (%s): %w", builds[i].name, builds[i].image.Spec.Dockerfile, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	flow.Logf(ctx, "built %s at version %s", imageNames(images), plan.Version)
	return images, nil
}

// platformBuild is one container a release builds: an image, or one platform's image of a
// multi-platform image, named as the scan names it ("filer (linux/arm64)").
type platformBuild struct {
	name  string
	image ci.Image
	*dagger.Container
}

// platformBuilds lists every container of images: each platform's, or the one image.
func platformBuilds(images []ci.Image) []platformBuild {
	var out []platformBuild
	for _, img := range images {
		if len(img.Variants) == 0 {
			out = append(out, platformBuild{img.Spec.Repository, img, img.Container})
			continue
		}
		for _, v := range img.Variants {
			out = append(out, platformBuild{buildplatform.TargetName(img.Spec.Repository, v.Platform), img, v.Container})
		}
	}
	return out
}

// Describe lists the images of the tagged source as Build would build them (Dockerfile,
// build arguments) without building anything: the publish job attests the digests the push
// job built and pushed, and the provenance needs only their recipe.
func Describe(ctx context.Context, cfg Config, plan releasegate.Plan, src *dagger.Directory) ([]ci.Image, error) {
	images, err := cfg.pipeline(src).Images(ctx, plan.Version)
	if err == nil {
		err = sameImages(plan, images)
	}
	if err != nil {
		return nil, err
	}
	return images, nil
}

// sameImages checks that the tagged source builds exactly the images the plan publishes
// (the plan's names are the specs' repository names, tesk-core-<name>).
func sameImages(plan releasegate.Plan, images []ci.Image) error {
	var want, got []string
	for _, img := range plan.Images {
		want = append(want, img.Name)
	}
	for _, img := range images {
		got = append(got, img.Spec.Repository)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		return fmt.Errorf("containers/ at %s builds %s, but the release publishes %s", plan.Tag, strings.Join(got, ", "), strings.Join(want, ", "))
	}
	return nil
}

func imageNames(images []ci.Image) string {
	names := make([]string, 0, len(images))
	for _, img := range images {
		names = append(names, img.Spec.Repository)
	}
	return strings.Join(names, ", ")
}
