// Package doctor checks, read-only and through the GitHub API, the repository settings the
// two systems' guarantees rest on: who may create and move release tags, which
// environments gate publishing, which status check is required, Dependabot and code
// owners, the Shipyard pin of the workflows (tesk-core); the publication switch, the
// token and the upload workflow (a Cloudcoil model repository).
//
// As in pipelines/release, the decisions are pure functions (EvaluateTesk, EvaluateModel)
// over plain facts that Gather* fetch. A setting the token may not read is a fact of its
// own ("denied"), which the rules turn into "cannot check" with the permission needed,
// never into a pass.
package doctor

import (
	"fmt"
	"strings"

	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/output"
)

// System names which repository's settings are checked.
type System string

const (
	// TeskCore is tesk-core's repository.
	TeskCore System = "tesk-core"
	// CloudcoilModel is a Cloudcoil model repository (cloudcoil/models-<name>).
	CloudcoilModel System = "cloudcoil-model"
	// CloudcoilGenerator is Cloudcoil's generator repository, which runs model-versions
	// and update-repos.
	CloudcoilGenerator System = "cloudcoil-generator"
)

// ParseSystem checks a --system value.
func ParseSystem(s string) (System, error) {
	switch System(s) {
	case TeskCore, CloudcoilModel, CloudcoilGenerator:
		return System(s), nil
	}
	return "", fmt.Errorf("--system %q: want %s, %s or %s", s, TeskCore, CloudcoilModel, CloudcoilGenerator)
}

// Status is a check's outcome.
type Status string

const (
	// Pass: the setting is as the system needs it.
	Pass Status = "pass"
	// Fail: the setting is missing or wrong; the finding says how to fix it.
	Fail Status = "fail"
	// CannotCheck: the token may not read the setting; never a pass.
	CannotCheck Status = "cannot-check"
	// Manual: the setting lives outside GitHub's API; the finding says where to look.
	Manual Status = "manual"
)

// Finding is one check's outcome: what holds or is wrong, why it matters, and the fix.
type Finding struct {
	// Check names the check, e.g. tag-create or required-check:dev.
	Check  string `json:"check"`
	Status Status `json:"status"`
	// Summary says what was found.
	Summary string `json:"summary"`
	// Why says what breaks when the setting is wrong (set unless the check passed).
	Why string `json:"why,omitempty"`
	// Fix is the settings path or API call that repairs it.
	Fix string `json:"fix,omitempty"`
	// Permission is what the token needs to read the setting (cannot-check only).
	Permission string `json:"permission,omitempty"`
}

// Report is every finding for one repository, in a stable order.
type Report struct {
	Repo     string    `json:"repo"`
	System   System    `json:"system"`
	Findings []Finding `json:"findings"`
}

// Count returns how many findings have the status.
func (r Report) Count(s Status) int {
	n := 0
	for _, f := range r.Findings {
		if f.Status == s {
			n++
		}
	}
	return n
}

// OK is the exit decision: no check failed and, when strict, every check could be run.
// "cannot check" alone is a warning by default, because a read-only token of a
// maintainer who is not an admin cannot see every setting; --strict (for a scheduled run
// with an admin's read token) makes it an error.
func (r Report) OK(strict bool) bool {
	return r.Count(Fail) == 0 && (!strict || r.Count(CannotCheck) == 0)
}

// Text renders the report for a terminal.
func (r Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s (%s): %d passed, %d failed, %d cannot be checked, %d to check by hand\n", functions.Doctor,
		r.Repo, r.System, r.Count(Pass), r.Count(Fail), r.Count(CannotCheck), r.Count(Manual))
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "\n[%s] %s: %s\n", f.Status, f.Check, f.Summary)
		if f.Why != "" {
			fmt.Fprintf(&b, "    why: %s\n", f.Why)
		}
		if f.Permission != "" {
			fmt.Fprintf(&b, "    needs: %s\n", f.Permission)
		}
		if f.Fix != "" {
			fmt.Fprintf(&b, "    fix: %s\n", f.Fix)
		}
	}
	return b.String()
}

// JSON renders the report as indented JSON.
func (r Report) JSON() (string, error) {
	return output.Marshal(r)
}

func pass(check, summary string) Finding {
	return Finding{Check: check, Status: Pass, Summary: summary}
}

func fail(check, summary, why, fix string) Finding {
	return Finding{Check: check, Status: Fail, Summary: summary, Why: why, Fix: fix}
}

func cannot(check, what, permission, why string) Finding {
	return Finding{Check: check, Status: CannotCheck, Summary: "the token may not read " + what + ": not a pass",
		Why: why, Permission: permission,
		Fix: "run doctor again with a token that has what \"needs\" names"}
}
