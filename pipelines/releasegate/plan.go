package releasegate

import (
	"encoding/json"
	"fmt"
	"strings"

	"dagger/shipyard/internal/output"
)

// Plan is what a release of a tag will do. Its JSON field names are stable.
type Plan struct {
	Repo    string `json:"repo"`
	Tag     string `json:"tag"`
	Version string `json:"version"` // the tag without v
	// Final is true for X.Y.Z, false for a, b and rc versions.
	Final bool `json:"final"`
	// Prerelease is whether GitHub marks the release as a pre-release: every a, b and
	// rc version, and every version below 1.0.0.
	Prerelease bool `json:"prerelease"`
	// Latest is whether the images get the latest tag: a final version that is the
	// highest final release among the published ones and this one.
	Latest bool `json:"latest"`
	// MakeLatest is GitHub's make_latest for the release: "true" or "false".
	MakeLatest string  `json:"make_latest"`
	Commit     string  `json:"commit"`
	Images     []Image `json:"images"`
	NotesFile  string  `json:"notes_file"`
	// Notes are the curated release notes at the tagged commit.
	Notes    string   `json:"notes"`
	Warnings []string `json:"warnings,omitempty"`
}

// Image is one image of the release and the tags it gets.
type Image struct {
	Name       string   `json:"name"`       // e.g. tesk-core-taskmaster
	Repository string   `json:"repository"` // e.g. elixircloud/tesk-core-taskmaster
	Tags       []string `json:"tags"`
}

// Text renders the plan for people.
func (p Plan) Text() string {
	var b strings.Builder
	kind := "final"
	if !p.Final {
		kind = "pre-release version"
	}
	fmt.Fprintf(&b, "Release plan for %s %s\n", p.Repo, p.Tag)
	fmt.Fprintf(&b, "  version:      %s (%s)\n", p.Version, kind)
	fmt.Fprintf(&b, "  commit:       %s\n", p.Commit)
	fmt.Fprintf(&b, "  GitHub:       pre-release %s, make_latest %s\n", output.YesNo(p.Prerelease), p.MakeLatest)
	b.WriteString("  images:\n")
	width := 0
	for _, img := range p.Images {
		width = max(width, len(img.Repository))
	}
	for _, img := range p.Images {
		fmt.Fprintf(&b, "    %-*s  %s\n", width+1, img.Repository+":", strings.Join(img.Tags, ", "))
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "  warning:      %s\n", w)
	}
	fmt.Fprintf(&b, "  notes:        %s\n", p.NotesFile)
	b.WriteString(output.Quoted(p.Notes))
	return b.String()
}

// GateError lists every rule a tag fails. Check returns it instead of a plan.
type GateError struct {
	Repo       string
	Tag        string
	Violations []Violation
}

func (e *GateError) Error() string {
	var b strings.Builder
	failed, unchecked := 0, 0
	for _, v := range e.Violations {
		if v.Skipped {
			unchecked++
		} else {
			failed++
		}
	}
	fmt.Fprintf(&b, "%s of %s fails %d of %d release rules", e.Tag, e.Repo, failed, RuleCount)
	if unchecked > 0 {
		fmt.Fprintf(&b, " (%d more not checked)", unchecked)
	}
	// Rules that could not be checked share their reason: print it once.
	var reasons []string
	skippedBy := map[string][]string{}
	for _, v := range e.Violations {
		if v.Skipped {
			if _, seen := skippedBy[v.Message]; !seen {
				reasons = append(reasons, v.Message)
			}
			skippedBy[v.Message] = append(skippedBy[v.Message], fmt.Sprintf("%d (%s)", v.Rule, v.Name))
			continue
		}
		fmt.Fprintf(&b, "\n  %s", v.Summary())
		for _, d := range v.Details {
			fmt.Fprintf(&b, "\n      %s", d)
		}
		if v.Fix != "" {
			fmt.Fprintf(&b, "\n      fix: %s", v.Fix)
		}
	}
	for _, r := range reasons {
		fmt.Fprintf(&b, "\n  not checked: rules %s: %s", strings.Join(skippedBy[r], ", "), r)
	}
	return b.String()
}

// Summary is the violation's first line as the text report prints it, e.g.
// "rule 5 (release-notes): docs/releases/0.11.0.md does not follow …".
func (v Violation) Summary() string {
	return fmt.Sprintf("rule %d (%s): %s", v.Rule, v.Name, v.Message)
}

// MarshalJSON adds the summary, so that a reader of the JSON finds the same words as a
// reader of the text report.
func (v Violation) MarshalJSON() ([]byte, error) {
	type fields Violation // without this method
	return json.Marshal(struct {
		fields
		Summary string `json:"summary"`
	}{fields(v), v.Summary()})
}

// Report is release-plan's JSON document: the plan when the tag passes every rule, the
// violations otherwise. Its field names are stable.
type Report struct {
	OK         bool        `json:"ok"`
	Plan       *Plan       `json:"plan,omitempty"`
	Violations []Violation `json:"violations,omitempty"`
}

// JSON renders the gate's failure as release-plan's JSON document on one line:
// {"ok": false, "violations": [...]}.
func (e *GateError) JSON() string {
	b, err := json.Marshal(Report{Violations: e.Violations})
	if err != nil {
		// Strings, ints and bools only: Marshal cannot fail; keep the text, never panic.
		return e.Error()
	}
	return string(b)
}
