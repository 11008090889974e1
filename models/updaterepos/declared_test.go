package updaterepos

import (
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/flow/flowtest"
	"dagger/shipyard/models/modelenv"
	"testing"
)

// knownSteps are the names of every step of update-repos (reading its default branch):
// any of them could show up in a message.
func knownSteps() []string {
	return flow.Names(updateSteps(modelenv.Env{}, nil, nil, "keda", UpdateOptions{Branch: "main"}))
}

// requireNamed fails t unless err, a failure of the flow that declared names, names one of
// those steps as the failed one, each step at most once, and no step of another flow: only
// the runner names a step.
func requireNamed(t testing.TB, err error, declared []string) {
	t.Helper()
	flowtest.RequireNamed(t, err, declared, knownSteps())
}
