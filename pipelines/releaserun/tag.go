package releaserun

import (
	"context"
	"errors"
	"slices"

	"dagger/shipyard/internal/registry"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/release"
)

// Tag points the plan's tags at each pushed digest: first the version X.Y.Z (or X.Y.ZrcN)
// on every image; if any version tag is on another digest nothing is tagged, and tags
// already on their digest are kept. Then, when the plan says so, latest: for every image
// together or for none (registry.MoveLatest), after one recheck, right before it moves,
// that no higher release was published meanwhile.
func Tag(ctx context.Context, cfg Config, plan release.Plan, pushed []publish.Pushed) ([]registry.ApplyReport, error) {
	reports, err := publish.TagImages(ctx, cfg.Images.Target, pushed, []string{plan.Version}, nil)
	if err != nil {
		return reports, tagErr(plan, err)
	}
	if plan.Latest {
		targets := make([]registry.LatestTarget, len(pushed))
		for i, p := range pushed {
			targets[i] = registry.LatestTarget{Repo: p.Repository, Digest: p.Digest}
		}
		t := cfg.Images.Target
		latest, err := registry.MoveLatest(ctx, targets, t.Auth, stillLatest(cfg, plan.Tag, pushed), t.RegistryOptions...)
		addLatest(reports, latest)
		if err != nil {
			return reports, tagErr(plan, err)
		}
	}
	for _, r := range reports {
		cfg.logf("%s: %s@%s: %d written, %d kept, %d skipped", StepTag, r.Image, r.Digest, len(r.Written), len(r.Kept), len(r.Skipped))
	}
	return reports, nil
}

func tagErr(plan release.Plan, err error) error {
	next := nextRerun
	var ie *registry.ImmutableTagError
	var ce *registry.ConcurrentTagError
	if errors.As(err, &ie) || errors.As(err, &ce) {
		next = nextHigherVersion
	}
	return stepErr(StepTag, plan.Tag, next, err)
}

// addLatest records latest's outcome in each image's report, as the version's is.
func addLatest(reports []registry.ApplyReport, latest registry.LatestReport) {
	for i := range reports {
		for _, m := range latest.Moves {
			if m.Repo != reports[i].Image {
				continue
			}
			a := registry.TagAction{Tag: registry.TagLatest, Class: registry.ClassMoving, Action: m.Action, From: m.From}
			switch {
			case m.Action == registry.ActionKeep:
				reports[i].Kept = append(reports[i].Kept, a)
			case latest.Skipped != "":
				reports[i].Skipped = append(reports[i].Skipped, registry.SkippedTag{Tag: registry.TagLatest, Reason: latest.Skipped})
			case slices.Contains(latest.Written, m.Repo):
				reports[i].Written = append(reports[i].Written, a)
			}
		}
	}
}
