// Package jobs is the result of one job of a flow (passed, failed, skipped, with its first
// error line), the summary table of a run's jobs, which tesk-core's CI gate and the
// Cloudcoil validations both print, and the Table that runs a flow's jobs and keeps their
// rows, which both systems' CI share.
package jobs

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"dagger.io/dagger"
)

// Status of one CI job.
type Status string

const (
	Passed  Status = "passed"
	Failed  Status = "failed"
	Skipped Status = "skipped"
)

// JobResult is one row of the CI summary.
type JobResult struct {
	Name     string        `json:"name"`
	Status   Status        `json:"status"`
	Duration time.Duration `json:"duration_ns"`
	// Reason is why a job was skipped, or the first error line of a failed one.
	Reason string `json:"reason,omitempty"`
	// ExitCode of the failing command, when a command failed.
	ExitCode int `json:"exit_code,omitempty"`
	// Stderr of the failing command, kept for the full report.
	Stderr string `json:"stderr,omitempty"`
}

// Result builds a job's row from its outcome.
func Result(name string, d time.Duration, err error) JobResult {
	r := JobResult{Name: name, Status: Passed, Duration: d}
	if err == nil {
		return r
	}
	r.Status = Failed
	r.Reason = FirstErrorLine(err)
	var ee *dagger.ExecError
	if errors.As(err, &ee) {
		r.ExitCode = ee.ExitCode
		r.Stderr = ee.Stderr
	}
	return r
}

// Summary is the "CI passed" gate: every job's row, and whether all passed.
type Summary struct {
	Jobs []JobResult `json:"jobs"`
}

// Passed reports whether no job failed (skipped jobs do not fail the gate).
func (s Summary) Passed() bool {
	for _, j := range s.Jobs {
		if j.Status == Failed {
			return false
		}
	}
	return true
}

// Err is nil when the gate passes, else an error naming every failed job.
func (s Summary) Err() error {
	var failed []string
	for _, j := range s.Jobs {
		if j.Status == Failed {
			failed = append(failed, j.Name)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("CI failed: %d job(s) failed: %s\n%s", len(failed), strings.Join(failed, ", "), s.Table())
}

// Table renders the summary as a Markdown table, readable in a terminal and in a GitHub step
// summary alike.
func (s Summary) Table() string {
	var b strings.Builder
	b.WriteString("| job | status | duration | first error |\n|---|---|---|---|\n")
	for _, j := range s.Jobs {
		reason := strings.ReplaceAll(j.Reason, "|", `\|`)
		if j.ExitCode != 0 {
			reason = fmt.Sprintf("exit code %d: %s", j.ExitCode, reason)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", j.Name, j.Status, j.Duration.Round(100*time.Millisecond), reason)
	}
	verdict := "CI passed"
	if !s.Passed() {
		verdict = "CI failed"
	}
	fmt.Fprintf(&b, "\n%s\n", verdict)
	return b.String()
}

// FirstErrorLine picks the line of a failure a maintainer should read first: for a failed
// command, the first stderr line that reads like an error, else stderr's last line; for any
// other error, its first line.
func FirstErrorLine(err error) string {
	if err == nil {
		return ""
	}
	var ee *dagger.ExecError
	if errors.As(err, &ee) {
		lines := nonEmptyLines(ee.Stderr)
		for _, l := range lines {
			low := strings.ToLower(l)
			if strings.Contains(low, "error") || strings.Contains(low, "failed") || strings.HasPrefix(low, "fail") {
				return l
			}
		}
		if len(lines) > 0 {
			return lines[len(lines)-1]
		}
		if out := nonEmptyLines(ee.Stdout); len(out) > 0 {
			return out[len(out)-1]
		}
	}
	if lines := nonEmptyLines(err.Error()); len(lines) > 0 {
		return lines[0]
	}
	return err.Error()
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			out = append(out, t)
		}
	}
	return out
}
