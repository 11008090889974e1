package publish

import "dagger/shipyard/internal/flow"

// BranchStepNames are the names of the steps a branch's publish declares, for the tests
// that check each failure names one of them.
func BranchStepNames() []string { return flow.Names(branchSteps("", nil, nil, TagPolicy{})) }
