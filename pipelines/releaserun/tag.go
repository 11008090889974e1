package releaserun

import (
	"context"
	"errors"

	"dagger/shipyard/internal/registry"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/release"
)

// Tag points the plan's tags at each pushed digest: the version X.Y.Z (or X.Y.ZrcN), and
// latest when the plan says so and, rechecked right before it moves, no higher release was
// published meanwhile. If any version tag is on another digest nothing is tagged; tags
// already on their digest are kept.
func Tag(ctx context.Context, cfg Config, plan release.Plan, pushed []publish.Pushed) ([]registry.ApplyReport, error) {
	tags := []string{plan.Version}
	if plan.Latest {
		tags = append(tags, registry.TagLatest)
	}
	reports, err := publish.TagImages(ctx, cfg.Images.Target, pushed, tags, stillLatest(cfg, plan.Tag, pushed))
	if err != nil {
		next := nextRerun
		var ie *registry.ImmutableTagError
		var ce *registry.ConcurrentTagError
		if errors.As(err, &ie) || errors.As(err, &ce) {
			next = nextHigherVersion
		}
		return reports, stepErr(StepTag, plan.Tag, next, err)
	}
	for _, r := range reports {
		cfg.logf("%s: %s@%s: %d written, %d kept, %d skipped", StepTag, r.Image, r.Digest, len(r.Written), len(r.Kept), len(r.Skipped))
	}
	return reports, nil
}
