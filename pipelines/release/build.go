package release

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"dagger.io/dagger"

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
		return nil, stepErr(StepBuild, plan.Tag, nextNothingPublished, err)
	}
	errs := make([]error, len(images))
	var wg sync.WaitGroup
	for i, img := range images {
		wg.Go(func() {
			if _, err := img.Container.Sync(ctx); err != nil {
				errs[i] = fmt.Errorf("image %s (%s): %w", img.Spec.Name, img.Spec.Dockerfile, err)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, stepErr(StepBuild, plan.Tag, nextNothingPublished, err)
		}
	}
	cfg.logf("%s: built %s at version %s", StepBuild, imageNames(images), plan.Version)
	return images, nil
}

// Describe lists the images of the tagged source as Build would build them (Dockerfile,
// build arguments) without building anything: the publish job attests the digests the push
// job built and pushed, and the provenance needs only their recipe.
func Describe(ctx context.Context, cfg Config, plan releasegate.Plan, src *dagger.Directory) ([]ci.Image, error) {
	images, err := ci.New(cfg.Client, src).Images(ctx, plan.Version)
	if err == nil {
		err = sameImages(plan, images)
	}
	if err != nil {
		return nil, stepErr(StepAttest, plan.Tag, "nothing was tagged yet: "+nextRerun, err)
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
