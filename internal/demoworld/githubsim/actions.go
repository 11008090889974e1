package githubsim

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
	"time"
)

func actionRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/actions/workflows/{workflow}/runs", handle: listWorkflowRuns},
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/actions/runs/{id}/jobs", handle: listWorkflowRunJobs},
	}
}

type workflow struct {
	id      int64
	name    string
	file    string
	nextRun int
}

// WorkflowRun is a run of a workflow. Zero fields get defaults when added: ID and
// RunNumber are assigned, RunAttempt is 1, Status is "completed", CreatedAt is the next
// seed time.
type WorkflowRun struct {
	ID int64
	// Workflow is the workflow's file name under .github/workflows, e.g. "ci.yml".
	Workflow   string
	Event      string // push, pull_request, workflow_dispatch, ...
	HeadBranch string
	HeadSHA    string
	// Status is queued, in_progress, waiting, requested, pending or completed.
	Status string
	// Conclusion is success, failure, cancelled, skipped, timed_out, action_required,
	// neutral, stale or startup_failure once completed; empty (null) before.
	Conclusion string
	RunAttempt int
	RunNumber  int
	CreatedAt  time.Time
	UpdatedAt  time.Time
	// Jobs are the jobs of the run's latest attempt, in the order GitHub lists them; a
	// run added without any lists none.
	Jobs []WorkflowJob
}

// WorkflowJob is a job of a run's latest attempt. Zero fields get defaults when added:
// ID is assigned, Status is "completed".
type WorkflowJob struct {
	ID   int64
	Name string
	// Status is queued, in_progress, completed, waiting, requested or pending.
	Status string
	// Conclusion is success, failure, neutral, cancelled, skipped, timed_out or
	// action_required once completed; empty (null) before.
	Conclusion string
}

// AddWorkflow declares a workflow file (runs declare theirs implicitly).
func (r *Repo) AddWorkflow(file, name string) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.workflowLocked(file).name = name
}

func (r *Repo) workflowLocked(file string) *workflow {
	w, ok := r.workflows[file]
	if !ok {
		// Without a name: key GitHub names a workflow by its path.
		w = &workflow{id: r.s.newID(), name: ".github/workflows/" + file, file: file}
		r.workflows[file] = w
	}
	return w
}

// AddWorkflowRun records a run and returns its id.
func (r *Repo) AddWorkflowRun(run WorkflowRun) int64 {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	w := r.workflowLocked(run.Workflow)
	if run.ID == 0 {
		run.ID = r.s.newID()
	}
	if run.RunNumber == 0 {
		w.nextRun++
		run.RunNumber = w.nextRun
	}
	if run.RunAttempt == 0 {
		run.RunAttempt = 1
	}
	if run.Status == "" {
		run.Status = "completed"
	}
	if run.CreatedAt.IsZero() {
		run.CreatedAt = r.s.stamp()
	}
	if run.UpdatedAt.IsZero() {
		run.UpdatedAt = run.CreatedAt
	}
	run.Jobs = r.s.newJobs(run.Jobs)
	r.runs = append(r.runs, &run)
	return run.ID
}

// newJobs gives jobs their defaults. Called with the server's lock held.
func (s *Server) newJobs(jobs []WorkflowJob) []WorkflowJob {
	out := slices.Clone(jobs)
	for i := range out {
		if out[i].ID == 0 {
			out[i].ID = s.newID()
		}
		if out[i].Status == "" {
			out[i].Status = "completed"
		}
	}
	return out
}

// RerunWorkflowRun starts the next attempt of a run, as GitHub's re-run does: same id,
// run_attempt + 1, with the given status and conclusion, and jobs as the new attempt's
// jobs (none given: it lists none).
func (r *Repo) RerunWorkflowRun(id int64, status, conclusion string, jobs ...WorkflowJob) {
	r.s.tb.Helper()
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	for _, run := range r.runs {
		if run.ID == id {
			run.RunAttempt++
			run.Status, run.Conclusion = status, conclusion
			run.UpdatedAt = r.s.stamp()
			run.Jobs = r.s.newJobs(jobs)
			return
		}
	}
	r.fatalf("RerunWorkflowRun: unknown run %d", id)
}

// listWorkflowRuns answers GET /repos/{owner}/{repo}/actions/workflows/{id or file}/runs
// with the filters branch, event, status (a status or a conclusion) and head_sha, newest
// first, paginated (default 30, at most 100).
func listWorkflowRuns(c *call) reply {
	key := c.r.PathValue("workflow")
	var w *workflow
	for _, cand := range c.repo.workflows {
		if cand.file == key || strconv.FormatInt(cand.id, 10) == key {
			w = cand
		}
	}
	if w == nil {
		return notFound("/actions/workflow-runs#list-workflow-runs-for-a-workflow")
	}
	q := c.r.URL.Query()
	var runs []*WorkflowRun
	for _, run := range c.repo.runs {
		switch {
		case run.Workflow != w.file,
			q.Get("branch") != "" && run.HeadBranch != q.Get("branch"),
			q.Get("event") != "" && run.Event != q.Get("event"),
			q.Get("head_sha") != "" && run.HeadSHA != q.Get("head_sha"),
			q.Get("status") != "" && run.Status != q.Get("status") && run.Conclusion != q.Get("status"):
			continue
		}
		runs = append(runs, run)
	}
	sort.Slice(runs, func(i, j int) bool {
		if !runs[i].CreatedAt.Equal(runs[j].CreatedAt) {
			return runs[i].CreatedAt.After(runs[j].CreatedAt)
		}
		return runs[i].ID > runs[j].ID
	})
	lo, hi, link := c.page(len(runs), 30, 100)
	out := make([]map[string]any, 0, hi-lo)
	for _, run := range runs[lo:hi] {
		out = append(out, c.runJSON(w, run))
	}
	rep := okJSON(map[string]any{"total_count": len(runs), "workflow_runs": out})
	if link != "" {
		rep.header = http.Header{"Link": {link}}
	}
	return rep
}

func (c *call) runJSON(w *workflow, run *WorkflowRun) map[string]any {
	self := c.repoURL("/actions/runs/%d", run.ID)
	var previous any
	if run.RunAttempt > 1 {
		previous = self + "/attempts/" + strconv.Itoa(run.RunAttempt-1)
	}
	return map[string]any{
		"id":                   run.ID,
		"name":                 w.name,
		"node_id":              nodeID("RUN", strconv.FormatInt(run.ID, 10)),
		"head_branch":          run.HeadBranch,
		"head_sha":             run.HeadSHA,
		"path":                 ".github/workflows/" + w.file,
		"display_title":        w.name,
		"run_number":           run.RunNumber,
		"event":                run.Event,
		"status":               run.Status,
		"conclusion":           nullable(run.Conclusion),
		"workflow_id":          w.id,
		"url":                  self,
		"html_url":             c.htmlURL("/actions/runs/%d", run.ID),
		"created_at":           timestamp(run.CreatedAt),
		"updated_at":           timestamp(run.UpdatedAt),
		"run_started_at":       timestamp(run.CreatedAt),
		"run_attempt":          run.RunAttempt,
		"jobs_url":             self + "/jobs",
		"logs_url":             self + "/logs",
		"rerun_url":            self + "/rerun",
		"cancel_url":           self + "/cancel",
		"previous_attempt_url": previous,
		"workflow_url":         c.repoURL("/actions/workflows/%d", w.id),
		"check_suite_url":      c.repoURL("/check-suites/%d", run.ID),
		"artifacts_url":        self + "/artifacts",
		"head_commit":          c.headCommitJSON(run.HeadSHA),
		"repository":           c.s.repository(c.repo),
		"head_repository":      c.s.repository(c.repo),
		"pull_requests":        []any{},
	}
}

// headCommitJSON is the simple-commit shape of a run's head commit; null when the
// repository has no record of that commit.
func (c *call) headCommitJSON(sha string) any {
	cm, ok := c.repo.commits[sha]
	if !ok {
		return nil
	}
	who := map[string]any{"name": "Maintainer", "email": "maintainer@example.org"}
	return map[string]any{
		"id":        sha,
		"tree_id":   treeSHA(cm.tree),
		"message":   cm.message,
		"timestamp": timestamp(cm.date),
		"author":    who,
		"committer": who,
	}
}

// listWorkflowRunJobs answers GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs: the
// jobs of the run's latest attempt, paginated (default 30, at most 100). Only the latest
// attempt is kept, so filter=all lists the same jobs as filter=latest, the default.
func listWorkflowRunJobs(c *call) reply {
	const docs = "/actions/workflow-jobs#list-jobs-for-a-workflow-run"
	id, err := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	if err != nil {
		return notFound(docs)
	}
	var run *WorkflowRun
	for _, r := range c.repo.runs {
		if r.ID == id {
			run = r
		}
	}
	if run == nil {
		return notFound(docs)
	}
	w := c.repo.workflows[run.Workflow]
	lo, hi, link := c.page(len(run.Jobs), 30, 100)
	out := make([]map[string]any, 0, hi-lo)
	for _, j := range run.Jobs[lo:hi] {
		out = append(out, c.jobJSON(w, run, j))
	}
	rep := okJSON(map[string]any{"total_count": len(run.Jobs), "jobs": out})
	if link != "" {
		rep.header = http.Header{"Link": {link}}
	}
	return rep
}

func (c *call) jobJSON(w *workflow, run *WorkflowRun, j WorkflowJob) map[string]any {
	var completed any
	if j.Status == "completed" {
		completed = timestamp(run.UpdatedAt)
	}
	return map[string]any{
		"id":                j.ID,
		"run_id":            run.ID,
		"run_url":           c.repoURL("/actions/runs/%d", run.ID),
		"run_attempt":       run.RunAttempt,
		"node_id":           nodeID("JOB", strconv.FormatInt(j.ID, 10)),
		"head_sha":          run.HeadSHA,
		"url":               c.repoURL("/actions/jobs/%d", j.ID),
		"html_url":          c.htmlURL("/actions/runs/%d/job/%d", run.ID, j.ID),
		"status":            j.Status,
		"conclusion":        nullable(j.Conclusion),
		"created_at":        timestamp(run.CreatedAt),
		"started_at":        timestamp(run.CreatedAt),
		"completed_at":      completed,
		"name":              j.Name,
		"steps":             []any{},
		"check_run_url":     c.repoURL("/check-runs/%d", j.ID),
		"labels":            []string{"ubuntu-latest"},
		"runner_id":         nil,
		"runner_name":       nil,
		"runner_group_id":   nil,
		"runner_group_name": nil,
		"workflow_name":     w.name,
		"head_branch":       run.HeadBranch,
	}
}
