package release

import (
	"context"
	"errors"
	"fmt"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/pipelines/releasegate"
)

// CheckGates runs release-plan: every gate of the tag, through the GitHub API, before anything is
// built. Any violated gate stops the release with every violation listed.
func CheckGates(ctx context.Context, cfg Config, tag string) (releasegate.Plan, error) {
	if cfg.GitHub == nil {
		return releasegate.Plan{}, errors.New("no GitHub client")
	}
	plan, err := releasegate.Check(ctx, cfg.GitHub, cfg.Repo, tag, cfg.Gates)
	if err != nil {
		var ge *releasegate.GateError
		next := "re-run once GitHub answers"
		if errors.As(err, &ge) {
			next = "nothing was built: fix what each rule says, then run the release again"
		}
		return releasegate.Plan{}, flow.Advise(err, next)
	}
	flow.Logf(ctx, "%s passes every gate (commit %s, pre-release %t, latest %t)", tag, plan.Commit, plan.Prerelease, plan.Latest)
	return plan, nil
}

// planAllowingItsRelease evaluates the gates like Plan but lets the last one ("no release of
// the tag exists") through: the GitHub step converges on a release an earlier attempt
// created, so re-running it alone must pass where a full re-run stops.
func planAllowingItsRelease(ctx context.Context, cfg Config, tag string) (releasegate.Plan, error) {
	facts, err := releasegate.Gather(ctx, cfg.GitHub, cfg.Repo, tag, cfg.Gates)
	if err != nil {
		return releasegate.Plan{}, flow.Advise(err, "re-run once GitHub answers")
	}
	plan, violations := releasegate.Evaluate(facts)
	var others []releasegate.Violation
	for _, v := range violations {
		if v.Rule != releasegate.RuleNotReleased {
			others = append(others, v)
		}
	}
	if len(others) > 0 {
		return releasegate.Plan{}, flow.Advise(&releasegate.GateError{Repo: cfg.Repo, Tag: tag, Violations: others},
			"fix what each rule says, then run the step again")
	}
	if len(violations) > 0 {
		// The plan was computed with this release among the published ones, which does not
		// change latest: IsLatest ignores the tag's own release.
		flow.Logf(ctx, "a release of %s exists; %s will check its content", tag, StepGHRelease)
	}
	if plan.Commit == "" {
		return releasegate.Plan{}, fmt.Errorf("tag %s resolved to no commit", tag)
	}
	return plan, nil
}
