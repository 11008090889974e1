package release

import (
	"context"
	"errors"
	"slices"
	"testing"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/flow/flowtest"
	"dagger/shipyard/pipelines/publish"
)

// declaredFlows are the step lists of every flow of the release, by the function that runs
// it.
func declaredFlows() map[string][]flow.Step[releaseState] {
	return map[string][]flow.Step[releaseState]{
		"Run":              releaseSteps(),
		"PushJob":          pushJobSteps(),
		"PushPlatformJob":  pushPlatformJobSteps(nil, ""),
		"AssembleJob":      assembleJobSteps(nil),
		"ScanJob":          scanJobSteps(),
		"ScanPlatformsJob": platformScanJobSteps(),
		"PublishJob":       publishJobSteps(),
		"ReleaseJob":       releaseJobSteps(),
		"imageSteps":       imageSteps(),
		"prepareStep":      prepareSteps(),
	}
}

// requireDeclaredStep fails t unless err, a failure of the flow that steps declares, names
// one of those steps: only the runner names a step, and it names its own.
func requireDeclaredStep(t testing.TB, err error, steps []flow.Step[releaseState]) {
	t.Helper()
	if err == nil {
		return
	}
	flowtest.RequireNamed(t, err, flow.Names(steps), knownSteps())
}

// knownSteps are the names of every step of every flow of the release and of publish.
func knownSteps() []string {
	known := publish.StepNames()
	for _, steps := range declaredFlows() {
		known = append(known, flow.Names(steps)...)
	}
	return known
}

// TestFaultsNameDeclaredSteps: every step a fault of the release fails is a step the
// release declares, and every flow declares each name once.
func TestFaultsNameDeclaredSteps(t *testing.T) {
	release := flow.Names(releaseSteps())
	for _, f := range releaseFaults() {
		if f.step != "" && !slices.Contains(release, f.step) {
			t.Errorf("fault %q fails step %q, which the release does not declare: %v", f.name, f.step, release)
		}
	}
	for name, steps := range declaredFlows() {
		names := flow.Names(steps)
		if len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
			t.Errorf("%s declares a step name twice: %v", name, names)
		}
	}
}

// TestEveryFailureCarriesItsAdvice: a step body's advice for one failure reaches the error
// in place of the step's, and the name is the step's own (release-plan, not the
// push-by-digest whose target it refused).
func TestEveryFailureCarriesItsAdvice(t *testing.T) {
	steps := []flow.Step[releaseState]{{Name: StepPlan, Run: func(_ context.Context, s *releaseState) error {
		return flow.Advise(errors.New("registry target refused"), nextNothingPublished)
	}}}
	_, err := flow.Run(t.Context(), flow.Runner{Flow: flowName("release", "v1.0.0")}, steps, &releaseState{})
	var fe *flow.Error
	if !errors.As(err, &fe) || fe.Step != StepPlan || fe.Next != nextNothingPublished ||
		err.Error() != "release v1.0.0: release-plan: registry target refused\n  next: "+nextNothingPublished {
		t.Errorf("%#v", err)
	}
	requireDeclaredStep(t, err, steps)
}
