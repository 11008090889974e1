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

// maxJobPages bounds the listing of a run's jobs (100 per page): a CI workflow with more
// than 1,000 jobs in one attempt is not one these checks were written for.
const maxJobPages = 10

// WorkflowRunJobs returns the jobs of a run's latest attempt (filter=latest: a re-run's
// jobs, not the earlier attempts'), in GitHub's order, every page. An unknown run is an
// error wrapping ErrNotFound.
func (c *Client) WorkflowRunJobs(ctx context.Context, owner, repo string, runID int64) ([]github.WorkflowJob, error) {
	var out []github.WorkflowJob
	opts := &gh.ListWorkflowJobsOptions{Filter: "latest", ListOptions: gh.ListOptions{PerPage: 100}}
	for range maxJobPages {
		jobs, resp, err := c.gh.Actions.ListWorkflowJobs(ctx, seg(owner), seg(repo), runID, opts)
		if err = apiErr(resp, err); err != nil {
			if isNotFound(err) {
				err = fmt.Errorf("%w: %w", github.ErrNotFound, err)
			}
			return nil, fmt.Errorf("github: jobs of workflow run %d in %s/%s (page %d): %w", runID, owner, repo, max(opts.Page, 1), err)
		}
		for _, j := range jobs.Jobs {
			out = append(out, github.WorkflowJob{ID: j.GetID(), Name: j.GetName(), Status: j.GetStatus(), Conclusion: j.GetConclusion(), URL: j.GetHTMLURL()})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
	return nil, fmt.Errorf("github: jobs of workflow run %d in %s/%s: more than %d pages", runID, owner, repo, maxJobPages)
}
