package modelrelease

import (
	"testing"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/flow/flowtest"
)

// knownSteps are the names of every step of every flow of the model release and
// publish-check: any of them could show up in a message.
func knownSteps() []string {
	var known []string
	known = append(known, flow.Names(prepareSteps())...)
	known = append(known, flow.Names(releaseSteps())...)
	return append(known, flow.Names(publishCheckSteps())...)
}

// requireNamed fails t unless err, a failure of the flow that declared names, names one of
// those steps as the failed one, each step at most once, and no step of another flow: only
// the runner names a step.
func requireNamed(t testing.TB, err error, declared []string) {
	t.Helper()
	flowtest.RequireNamed(t, err, declared, knownSteps())
}
