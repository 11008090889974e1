package github

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
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

// workflowRunJSON holds the fields of a workflow run the client reads.
type workflowRunJSON struct {
	ID         int64     `json:"id"`
	Name       string    `json:"name"`
	Event      string    `json:"event"`
	HeadBranch string    `json:"head_branch"`
	HeadSHA    string    `json:"head_sha"`
	Status     string    `json:"status"`
	Conclusion string    `json:"conclusion"`
	RunAttempt int       `json:"run_attempt"`
	HTMLURL    string    `json:"html_url"`
	CreatedAt  time.Time `json:"created_at"`
}

// LatestWorkflowRun returns the newest run of workflowFile (e.g. "ci.yml") for event on
// branch at headSHA, as its latest attempt left it (a re-run keeps the run's id and
// reports the new attempt). found is false when there is no such run; an unknown workflow
// file is an error wrapping ErrNotFound.
func (c *Client) LatestWorkflowRun(ctx context.Context, owner, repo, workflowFile, event, branch, headSHA string) (WorkflowRun, bool, error) {
	q := url.Values{}
	for k, v := range map[string]string{"event": event, "branch": branch, "head_sha": headSHA} {
		if v != "" {
			q.Set(k, v)
		}
	}
	// Runs come newest first; one page holds the newest.
	q.Set("per_page", "100")
	var runs struct {
		WorkflowRuns []workflowRunJSON `json:"workflow_runs"`
	}
	_, err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "actions/workflows/"+seg(workflowFile)+"/runs"), q, nil, &runs)
	if isNotFound(err) {
		return WorkflowRun{}, false, fmt.Errorf("github: workflow %s of %s/%s: %w", workflowFile, owner, repo, ErrNotFound)
	}
	if err != nil {
		return WorkflowRun{}, false, fmt.Errorf("github: runs of workflow %s in %s/%s: %w", workflowFile, owner, repo, apiErr(err))
	}
	var latest *workflowRunJSON
	for i := range runs.WorkflowRuns {
		r := &runs.WorkflowRuns[i]
		// Filter again: a server that ignored a parameter must not pass another commit's run.
		if r.HeadSHA != headSHA || (event != "" && r.Event != event) || (branch != "" && r.HeadBranch != branch) {
			continue
		}
		if latest == nil || r.CreatedAt.After(latest.CreatedAt) ||
			(r.CreatedAt.Equal(latest.CreatedAt) && r.ID > latest.ID) {
			latest = r
		}
	}
	if latest == nil {
		return WorkflowRun{}, false, nil
	}
	return WorkflowRun{
		ID: latest.ID, Name: latest.Name, Event: latest.Event,
		HeadBranch: latest.HeadBranch, HeadSHA: latest.HeadSHA,
		Status: latest.Status, Conclusion: latest.Conclusion, Attempt: latest.RunAttempt,
		URL: latest.HTMLURL, CreatedAt: latest.CreatedAt,
	}, true, nil
}
