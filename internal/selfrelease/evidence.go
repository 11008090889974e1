package selfrelease

import (
	"encoding/json"
	"fmt"
	"strings"
)

// CICheck is the name of the check run that says CI passed on a commit: the gate job of
// Shipyard's CI workflow (.github/workflows/ci.yml), which needs every other job.
const CICheck = "CI passed"

// CIApp is the GitHub App whose check runs are GitHub Actions jobs: a check of that name
// made by another app, or by a token with checks: write, is no evidence.
const CIApp = "github-actions"

// CheckRuns is GitHub's answer to "List check runs for a Git reference"
// (GET /repos/{owner}/{repo}/commits/{ref}/check-runs), as far as the evidence reads it.
type CheckRuns struct {
	TotalCount int        `json:"total_count"`
	CheckRuns  []CheckRun `json:"check_runs"`
}

// CheckRun is one check run of that answer.
type CheckRun struct {
	ID         int64  `json:"id"`
	HeadSHA    string `json:"head_sha"`
	Name       string `json:"name"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
	HTMLURL    string `json:"html_url"`
	App        struct {
		Slug string `json:"slug"`
	} `json:"app"`
}

// ParseCheckRuns reads the forge's answer, as saved by the release workflow.
func ParseCheckRuns(b []byte) (CheckRuns, error) {
	var r CheckRuns
	if err := json.Unmarshal(b, &r); err != nil {
		return CheckRuns{}, fmt.Errorf("the CI evidence is not GitHub's list of check runs: %w", err)
	}
	if r.CheckRuns == nil {
		return CheckRuns{}, fmt.Errorf("the CI evidence has no \"check_runs\": save GitHub's answer to GET /repos/{owner}/{repo}/commits/{sha}/check-runs")
	}
	return r, nil
}

// CIPassed judges the forge's evidence that CI passed on commit: the newest check run
// named CICheck on that very commit, made by GitHub Actions, completed with success.
// It returns "" when it did, else what is wrong.
func CIPassed(r CheckRuns, commit string) string {
	var newest *CheckRun
	for i, c := range r.CheckRuns {
		if c.Name != CICheck || c.HeadSHA != commit || c.App.Slug != CIApp {
			continue
		}
		if newest == nil || c.ID > newest.ID {
			newest = &r.CheckRuns[i]
		}
	}
	switch {
	case newest == nil:
		var seen []string
		for _, c := range r.CheckRuns {
			seen = append(seen, fmt.Sprintf("%q on %s by %s", c.Name, short(c.HeadSHA), orNone(c.App.Slug)))
		}
		return fmt.Sprintf("no check run %q by %s on %s (the forge lists: %s)", CICheck, CIApp, short(commit), orNone(strings.Join(seen, ", ")))
	case newest.Status != "completed":
		return fmt.Sprintf("check run %q on %s is %s, not completed%s", CICheck, short(commit), newest.Status, link(newest.HTMLURL))
	case newest.Conclusion != "success":
		return fmt.Sprintf("check run %q on %s concluded %s, not success%s", CICheck, short(commit), orNone(newest.Conclusion), link(newest.HTMLURL))
	}
	return ""
}

func link(url string) string {
	if url == "" {
		return ""
	}
	return " (" + url + ")"
}
