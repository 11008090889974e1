package versions

import "dagger/shipyard/internal/flow"

// DeclaredSteps are the names of every step model-versions declares, for the tests that
// check each failure names one of them.
func DeclaredSteps() []string {
	return append(flow.Names(setupSteps(false)), flow.Names(steps())...)
}
