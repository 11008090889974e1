package github

import (
	"time"
)

// WorkflowRun is one run of a workflow, as its latest attempt left it.
type WorkflowRun struct {
	ID         int64
	Name       string
	Event      string
	HeadBranch string
	HeadSHA    string
	// Status is queued, in_progress, completed, …; Conclusion (success, failure, …) is
	// set once completed.
	Status     string
	Conclusion string
	Attempt    int
	URL        string // the run's page on GitHub
	CreatedAt  time.Time
}
