package githubclient

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v84/github"

	"dagger/shipyard/internal/github"
)

// LatestWorkflowRun returns the newest run of workflowFile (e.g. "ci.yml") for event on
// branch at headSHA, as its latest attempt left it (a re-run keeps the run's id and
// reports the new attempt). found is false when there is no such run; an unknown workflow
// file is an error wrapping ErrNotFound.
func (c *Client) LatestWorkflowRun(ctx context.Context, owner, repo, workflowFile, event, branch, headSHA string) (github.WorkflowRun, bool, error) {
	runs, resp, err := c.gh.Actions.ListWorkflowRunsByFileName(ctx, seg(owner), seg(repo), seg(workflowFile), &gh.ListWorkflowRunsOptions{
		Event: event, Branch: branch, HeadSHA: headSHA,
		// Runs come newest first; one page holds the newest.
		ListOptions: gh.ListOptions{PerPage: 100},
	})
	err = apiErr(resp, err)
	if isNotFound(err) {
		return github.WorkflowRun{}, false, fmt.Errorf("github: workflow %s of %s/%s: %w", workflowFile, owner, repo, github.ErrNotFound)
	}
	if err != nil {
		return github.WorkflowRun{}, false, fmt.Errorf("github: runs of workflow %s in %s/%s: %w", workflowFile, owner, repo, err)
	}
	var latest *gh.WorkflowRun
	for _, r := range runs.WorkflowRuns {
		// Filter again: a server that ignored a parameter must not pass another commit's run.
		if r.GetHeadSHA() != headSHA || (event != "" && r.GetEvent() != event) || (branch != "" && r.GetHeadBranch() != branch) {
			continue
		}
		if latest == nil || r.GetCreatedAt().After(latest.GetCreatedAt().Time) ||
			(r.GetCreatedAt().Equal(latest.GetCreatedAt()) && r.GetID() > latest.GetID()) {
			latest = r
		}
	}
	if latest == nil {
		return github.WorkflowRun{}, false, nil
	}
	return github.WorkflowRun{
		ID: latest.GetID(), Name: latest.GetName(), Event: latest.GetEvent(),
		HeadBranch: latest.GetHeadBranch(), HeadSHA: latest.GetHeadSHA(),
		Status: latest.GetStatus(), Conclusion: latest.GetConclusion(), Attempt: latest.GetRunAttempt(),
		URL: latest.GetHTMLURL(), CreatedAt: latest.GetCreatedAt().Time,
	}, true, nil
}
