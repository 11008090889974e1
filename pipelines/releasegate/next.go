package releasegate

import (
	"fmt"
	"strings"

	"dagger/shipyard/internal/citation"
	"dagger/shipyard/internal/notes"
	"dagger/shipyard/internal/version"
)

// NextRelease is the pull-request check of the release a tree prepares: the version its
// CITATION.cff names, and the rules of the release's files (1, 4 and 5) applied to the
// tree, so a typo costs a commit and not a version number. A version that is published
// already has nothing to check: CITATION.cff names the latest release between releases.
type NextRelease struct {
	Version string `json:"version"`
	// Released is set when the version is published already (known only with a token).
	Released   bool        `json:"released"`
	Violations []Violation `json:"violations,omitempty"`
}

// CheckNext checks the release files of a tree: citation is its CITATION.cff, notesFor
// reads the curated notes of a version (docs/releases/<version>.md), released are the
// tags of the published releases (nil when unknown).
func CheckNext(cff FileFacts, notesFor func(version string) FileFacts, released []string) NextRelease {
	if !cff.Found {
		return NextRelease{Violations: []Violation{inFile(violation(RuleCitation,
			"add "+CitationFile+" with the version of the next release and its date-released",
			"%s does not exist", CitationFile), CitationFile, nil)}}
	}
	v, err := citation.Version(cff.Content)
	if err != nil {
		return NextRelease{Violations: []Violation{inFile(violation(RuleCitation,
			"set version: X.Y.Z (the tag without v) and date-released: YYYY-MM-DD", "%v", err), CitationFile, nil)}}
	}
	out := NextRelease{Version: v}
	tag := "v" + v
	for _, r := range released {
		if r == tag {
			out.Released = true
			return out
		}
	}
	if _, err := version.ParseReleaseTag(tag); err != nil {
		out.Violations = append(out.Violations, violation(RuleTagForm,
			"set version in "+CitationFile+" to a release version, the tag without v: 0.11.0 or 0.11.0rc1", "%v", err))
	}
	if problems := citation.Check(cff.Content, v); len(problems) > 0 {
		out.Violations = append(out.Violations, inFile(violation(RuleCitation,
			fmt.Sprintf("set version: %q and date-released: YYYY-MM-DD", v),
			"%s is not ready for %s", CitationFile, v), CitationFile, problems))
	}
	n := notesFor(v)
	switch problems := notes.Check(n.Path, n.Content); {
	case !n.Found:
		out.Violations = append(out.Violations, inFile(violation(RuleReleaseNotes,
			"add the curated release notes as "+n.Path, "%s does not exist", n.Path), n.Path, nil))
	case len(problems) > 0:
		out.Violations = append(out.Violations, inFile(violation(RuleReleaseNotes,
			"fix the notes; the format is described in the development docs",
			"%s does not follow the release notes format (%d problem(s))", n.Path, len(problems)), n.Path, problems))
	}
	return out
}

// Text renders the check for people; Err is its failure.
func (n NextRelease) Text() string {
	switch {
	case n.Released:
		return fmt.Sprintf("next release: %s names %s, which is released already: nothing to check until it names the next version\n", CitationFile, n.Version)
	case len(n.Violations) == 0:
		return fmt.Sprintf("next release: %s is ready as far as its files go (%s, %s): the tag's own rules are checked when it is pushed\n",
			n.Version, CitationFile, NotesPath("v"+n.Version))
	}
	return n.Err().Error() + "\n"
}

// Err lists every violation, nil when there is none.
func (n NextRelease) Err() error {
	if len(n.Violations) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "next release %s: %d problem(s) in its files", orUnknown(n.Version), len(n.Violations))
	for _, v := range n.Violations {
		fmt.Fprintf(&b, "\n  %s", v.Summary())
		for _, d := range v.Details {
			fmt.Fprintf(&b, "\n      %s", d)
		}
		if v.Fix != "" {
			fmt.Fprintf(&b, "\n      fix: %s", v.Fix)
		}
	}
	return fmt.Errorf("%s", b.String())
}
