package releaserun

import (
	"context"
	"errors"
	"fmt"

	"dagger/shipyard/internal/registry"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/release"
)

// Push pushes the built images by digest, untagged, then checks the version tag of each
// image: absent, or already on the digest just pushed (a re-run), the release goes on; on
// another digest it stops before anything is scanned, signed or tagged, since a published
// version never moves.
func Push(ctx context.Context, cfg Config, plan release.Plan, images []ci.Image) ([]publish.Pushed, error) {
	if err := cfg.Images.checkTarget(plan); err != nil {
		return nil, stepErr(StepPush, plan.Tag, nextNothingPublished, err)
	}
	pushed, err := publish.PushByDigest(ctx, images, cfg.Images.Target, cfg.Images.Workdir)
	if err != nil {
		return nil, stepErr(StepPush, plan.Tag, nextRerun, err)
	}
	existing := map[string]map[string]string{}
	for _, p := range pushed {
		found, err := registry.ResolveTags(ctx, p.Repository, []string{plan.Version}, cfg.Images.Target.Auth, cfg.Images.Target.RegistryOptions...)
		if err != nil {
			return nil, stepErr(StepPush, plan.Tag, nextRerun, fmt.Errorf("reading tag %s of %s: %w", plan.Version, p.Repository, err))
		}
		existing[p.Repository] = found
	}
	if err := CheckVersionTags(plan.Version, pushed, existing); err != nil {
		return nil, stepErr(StepPush, plan.Tag, nextHigherVersion, err)
	}
	for _, p := range pushed {
		cfg.logf("%s: %s", StepPush, p.Ref())
	}
	return pushed, nil
}

// CheckVersionTags decides whether the version may be published on the pushed digests:
// existing maps each repository to its tags; a version tag there must be on the digest
// pushed now. Every image that would move is named.
func CheckVersionTags(version string, pushed []publish.Pushed, existing map[string]map[string]string) error {
	var errs []error
	for _, p := range pushed {
		if d, ok := existing[p.Repository][version]; ok && d != p.Digest {
			errs = append(errs, &registry.ImmutableTagError{
				Image: p.Repository, Tag: version, Class: registry.ClassVersion, Published: d, Wanted: p.Digest,
			})
		}
	}
	return errors.Join(errs...)
}
