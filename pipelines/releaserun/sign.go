package releaserun

import (
	"context"

	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/release"
)

// Sign signs each pushed digest keylessly. A digest that carries its signature already
// keeps it, so a re-run writes nothing twice.
func Sign(ctx context.Context, cfg Config, plan release.Plan, pushed []publish.Pushed) ([]publish.Evidence, error) {
	ev, err := publish.Sign(ctx, cfg.Images.withSource(cfg, plan), cfg.Images.Target, pushed)
	if err != nil {
		return nil, stepErr(StepSign, plan.Tag, "nothing was tagged yet: "+nextRerun, err)
	}
	cfg.logf("%s: %d signature(s)", StepSign, len(ev))
	return ev, nil
}
