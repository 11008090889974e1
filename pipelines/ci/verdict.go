package ci

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"dagger.io/dagger"
)

// VerdictFile is the machine-readable verdict every report-producing function writes next
// to its reports, so a caller exports the reports first and fails after (a Dagger function
// that returns an error returns no Directory, and the reports would be lost exactly when
// they matter): `… scan export --path scan && jq -e .passed scan/verdict.json`.
const VerdictFile = "verdict.json"

// Verdict is the outcome of a job whose reports are kept whatever it decides.
type Verdict struct {
	// Job names what was decided, as in the workflow ("Scan image (filer)", "CI").
	Job    string `json:"job"`
	Passed bool   `json:"passed"`
	// Failures says what failed, one entry each; empty when Passed.
	Failures []string `json:"failures"`
}

// NewVerdict is the verdict of a job: passed when nothing failed, else
// failed with each failure as one entry.
func NewVerdict(job string, failures ...string) Verdict {
	v := Verdict{Job: job, Passed: len(failures) == 0, Failures: failures}
	if v.Failures == nil {
		v.Failures = []string{}
	}
	return v
}

// VerdictOf is NewVerdict for a job that ends in one error (nil when it passed).
func VerdictOf(job string, err error) Verdict {
	if err == nil {
		return NewVerdict(job)
	}
	return NewVerdict(job, err.Error())
}

// JSON is the verdict as verdict.json holds it.
func (v Verdict) JSON() string {
	b, _ := json.MarshalIndent(v, "", "  ") // a struct of strings and a bool always encodes
	return string(b) + "\n"
}

// Err is nil when the verdict passed, else an error naming the job and its failures: what
// a check returns, so `dagger check` fails on it.
func (v Verdict) Err() error {
	if v.Passed {
		return nil
	}
	return fmt.Errorf("%s failed: %s", v.Job, strings.Join(v.Failures, "; "))
}

// ParseVerdict reads a verdict.json; a verdict that does not say passed, or contradicts
// itself (passed with failures), is refused, so a check fails closed on a file it misread.
func ParseVerdict(b []byte) (Verdict, error) {
	var raw struct {
		Job      string    `json:"job"`
		Passed   *bool     `json:"passed"`
		Failures *[]string `json:"failures"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return Verdict{}, fmt.Errorf("%s: %w", VerdictFile, err)
	}
	if raw.Passed == nil || raw.Failures == nil {
		return Verdict{}, fmt.Errorf("%s: want the keys passed and failures", VerdictFile)
	}
	if *raw.Passed && len(*raw.Failures) > 0 {
		return Verdict{}, fmt.Errorf("%s: passed with %d failures", VerdictFile, len(*raw.Failures))
	}
	if !*raw.Passed && len(*raw.Failures) == 0 {
		return Verdict{}, fmt.Errorf("%s: failed without a failure named", VerdictFile)
	}
	return Verdict{Job: raw.Job, Passed: *raw.Passed, Failures: *raw.Failures}, nil
}

// WithVerdict adds verdict.json to a directory of reports.
func WithVerdict(reports *dagger.Directory, v Verdict) *dagger.Directory {
	return reports.WithNewFile(VerdictFile, v.JSON())
}

// ErrNoVerdict is returned by ReadVerdict for reports without a verdict.
var ErrNoVerdict = errors.New("the reports have no " + VerdictFile)

// ReadVerdict reads the verdict of a reports directory: what a check, or the glue of a
// step run separately (scan-digests, scan-published), fails on after the reports are out.
func ReadVerdict(ctx context.Context, reports *dagger.Directory) (Verdict, error) {
	ok, err := reports.Exists(ctx, VerdictFile)
	if err != nil {
		return Verdict{}, fmt.Errorf("looking for %s: %w", VerdictFile, err)
	}
	if !ok {
		return Verdict{}, ErrNoVerdict
	}
	s, err := reports.File(VerdictFile).Contents(ctx)
	if err != nil {
		return Verdict{}, fmt.Errorf("reading %s: %w", VerdictFile, err)
	}
	return ParseVerdict([]byte(s))
}
