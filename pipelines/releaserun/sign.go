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

// VerifySigned verifies each pushed digest's signature and provenance, as a user will, with
// the identity and issuer that signed them: a tag never names a digest that does not verify.
func VerifySigned(ctx context.Context, cfg Config, plan release.Plan, pushed []publish.Pushed, evidence []publish.Evidence) error {
	verified, err := publish.VerifySigned(ctx, cfg.Images.withSource(cfg, plan), cfg.Images.Target, pushed, evidence)
	if err != nil {
		return stepErr(StepVerifySigned, plan.Tag, "nothing was tagged yet: "+nextRerun, err)
	}
	for _, v := range verified {
		cfg.logf("%s: %s: %d bundle(s) verified", StepVerifySigned, v.Ref, len(v.Verified))
	}
	return nil
}
