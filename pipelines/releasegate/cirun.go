package releasegate

import (
	"fmt"
	"strings"

	"dagger/shipyard/internal/doctor"
)

// CIGateJob is the job of the CI workflow that passes only when every CI job did (its needs:
// lint, tests, docs, image builds and scans, …), and which branches require: the seed's
// "CI passed", which rule 6 reads. The jobs outside it, the dev images' push and publish,
// are not CI.
const CIGateJob = doctor.RequiredCheck

// checkCIRun is rule 6 on the newest run of the commit's push to dev. CI passed when the
// run's latest attempt succeeded as a whole (every job passed or was skipped), or, whatever
// the rest of the run did, when its gate job CIGateJob succeeded: the gate's needs are the
// CI jobs (lint, tests, docs, the image builds and scans), and the jobs after it, which push
// and publish the dev images, are not CI. So a failed dev publish, a Sigstore hiccup, or a
// publish job cancelled while it waited for its approval leaves CI passed; a CI job that
// failed, or a run cancelled before its gate passed, does not, and the violation names each
// job that did not pass, with its link.
func checkCIRun(f Facts, sha string) []Violation {
	run := f.CI
	if run.Status == "completed" && run.Conclusion == "success" {
		return nil
	}
	var gate []CIJob
	var failed, failures []string
	for _, j := range run.Jobs {
		switch {
		case j.Name == CIGateJob:
			gate = append(gate, j)
		case jobFailed(j):
			failed = append(failed, jobLine(j))
			if j.Conclusion != "cancelled" {
				failures = append(failures, j.Name)
			}
		}
	}
	gatePassed := len(gate) > 0
	for _, j := range gate {
		if j.Status != "completed" || j.Conclusion != "success" {
			gatePassed = false
			failed = append(failed, jobLine(j))
		}
	}
	if gatePassed {
		return nil
	}
	fix := "fix CI on " + DevBranch + " or re-run the failed jobs if the failure was transient"
	switch {
	case len(failures) > 0:
		fix = fmt.Sprintf("fix %s on %s, or re-run the failed jobs if the failure was transient", jobsNamed(failures), DevBranch)
	case len(failed) > 0 && len(gate) > 0:
		fix = "re-run the failed jobs (a cancelled job is no verdict)"
	}
	var v Violation
	switch {
	case len(gate) == 0 && run.Status == "completed":
		v = violation(RuleCIPassed,
			fmt.Sprintf("name the CI workflow's gate job %q (needs: every CI job), as tesk-core's ci.yml does, so that the dev images' jobs do not count; and %s", CIGateJob, fix),
			"CI (%s) did not pass for the %s of commit %s to %s (conclusion %s, attempt %d): %s; the run has no job named %s, the gate of the CI jobs",
			f.Workflow, CIEvent, sha, DevBranch, orUnknown(run.Conclusion), run.Attempt, run.URL, CIGateJob)
	case run.Status != "completed":
		if len(gate) == 0 {
			failed = append(failed, "job "+CIGateJob+" has not started")
		}
		if len(failures) == 0 {
			fix = "wait for the run to finish"
		} else {
			fix += ", once the run has finished"
		}
		v = violation(RuleCIPassed, fix+", then run release-plan again",
			"CI (%s) has not yet finished for the %s of commit %s to %s (status %s, attempt %d): %s",
			f.Workflow, CIEvent, sha, DevBranch, run.Status, run.Attempt, run.URL)
	default:
		v = violation(RuleCIPassed, fix+", then run release-plan again",
			"CI (%s) did not pass for the %s of commit %s to %s (conclusion %s, attempt %d): %s",
			f.Workflow, CIEvent, sha, DevBranch, orUnknown(run.Conclusion), run.Attempt, run.URL)
	}
	v.Details = failed
	return []Violation{v}
}

// jobFailed is whether a job of the run ended without passing: skipped and neutral jobs
// pass, as they do for the gate's needs.
func jobFailed(j CIJob) bool {
	return j.Status == "completed" && j.Conclusion != "success" && j.Conclusion != "skipped" && j.Conclusion != "neutral"
}

// jobLine says how a job ended, or that it has not, with its link: "job Lint failed: <url>".
func jobLine(j CIJob) string {
	var state string
	switch {
	case j.Status != "completed":
		state = "is " + strings.ReplaceAll(orUnknown(j.Status), "_", " ")
	case j.Conclusion == "failure":
		state = "failed"
	case j.Conclusion == "timed_out":
		state = "timed out"
	case j.Conclusion == "startup_failure":
		state = "failed to start"
	case j.Conclusion == "action_required":
		state = "needs an action"
	default:
		state = orUnknown(j.Conclusion)
	}
	line := "job " + j.Name + " " + state
	if j.URL != "" {
		line += ": " + j.URL
	}
	return line
}

// jobsNamed names jobs in a fix: "job Lint", "jobs Lint, Docs".
func jobsNamed(names []string) string {
	if len(names) == 1 {
		return "job " + names[0]
	}
	return "jobs " + strings.Join(names, ", ")
}
