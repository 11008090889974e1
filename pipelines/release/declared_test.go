package release

import (
	"context"
	"errors"
	"slices"
	"testing"

	"dagger/shipyard/internal/flow"
)

// declaredFlows are the step lists of every flow of the release, by the function that runs
// it.
func declaredFlows() map[string][]flow.Step[state] {
	return map[string][]flow.Step[state]{
		"Run":             releaseSteps(),
		"PushJob":         pushJobSteps(),
		"PushPlatformJob": pushPlatformJobSteps(nil, ""),
		"AssembleJob":     assembleJobSteps(nil),
		"ScanJob":         scanJobSteps(),
		"PublishJob":      publishJobSteps(),
		"ReleaseJob":      releaseJobSteps(),
		"imageSteps":      imageSteps(),
		"prepareStep":     prepareSteps(),
	}
}

// requireDeclaredStep fails t unless err, a failure of the flow that steps declares, names
// one of those steps: only the runner names a step, and it names its own.
func requireDeclaredStep(t testing.TB, err error, steps []flow.Step[state]) {
	t.Helper()
	if err == nil {
		return
	}
	var fe *flow.Error
	if !errors.As(err, &fe) {
		t.Errorf("a failure names no step: %v", err)
		return
	}
	if names := flow.Names(steps); !slices.Contains(names, fe.Step) {
		t.Errorf("a failure names step %q, which its flow does not declare (%v): %v", fe.Step, names, err)
	}
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
	steps := []flow.Step[state]{{Name: StepPlan, Run: func(_ context.Context, s *state) error {
		return flow.Advise(errors.New("registry target refused"), nextNothingPublished)
	}}}
	_, err := flow.Run(t.Context(), flow.Runner{Flow: flowName("v1.0.0")}, steps, &state{})
	var fe *flow.Error
	if !errors.As(err, &fe) || fe.Step != StepPlan || fe.Next != nextNothingPublished ||
		err.Error() != "release v1.0.0: release-plan: registry target refused\n  next: "+nextNothingPublished {
		t.Errorf("%#v", err)
	}
	requireDeclaredStep(t, err, steps)
}
