package releaserun

import (
	"context"

	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/release"
)

// Attest attaches SLSA build provenance to each pushed digest, naming the tag and the commit
// built. A digest that carries it already keeps it, so a re-run writes nothing twice.
func Attest(ctx context.Context, cfg Config, plan release.Plan, pushed []publish.Pushed, images []ci.Image) ([]publish.Evidence, error) {
	ev, err := publish.Attest(ctx, cfg.Images.withSource(cfg, plan), cfg.Images.Target, pushed, images)
	if err != nil {
		return nil, stepErr(StepAttest, plan.Tag, "nothing was tagged yet: "+nextRerun, err)
	}
	cfg.logf("%s: %d provenance attestation(s)", StepAttest, len(ev))
	return ev, nil
}
