package publish

import "dagger/shipyard/internal/flow"

// DevStepNames are the names of the steps publish-dev declares, for the tests that check
// each failure names one of them.
func DevStepNames() []string { return flow.Names(devSteps("", nil, nil)) }
