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

// WorkflowJob is one job of a workflow run's latest attempt.
type WorkflowJob struct {
	ID   int64
	Name string // as the workflow names it, e.g. "Test (Python 3.13)" or "CI passed"
	// Status is queued, in_progress, completed, …; Conclusion (success, failure,
	// cancelled, skipped, …) is set once completed.
	Status     string
	Conclusion string
	URL        string // the job's page on GitHub
}
