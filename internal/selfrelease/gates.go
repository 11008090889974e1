package selfrelease

import (
	"fmt"
	"strings"

	goversion "github.com/hashicorp/go-version"

	"dagger/shipyard/internal/notes"
)

// The gates of a Shipyard release, by name: each is a rule a tag must pass before it is
// created, as release-plan's rules are for a tesk-core tag.
const (
	GateTag       = "release-tag"   // vMAJOR.MINOR.PATCH[-PRERELEASE], above every release
	GateNotMoved  = "not-moved"     // an existing tag of that name is on that very commit
	GateChangelog = "changelog"     // CHANGELOG.md has the version's dated section
	GateNotes     = "release-notes" // docs/releases/<version>.md in the curated format
	GateCI        = "ci-passed"     // .ci/run passed on that commit, with a clean tree
	GatePins      = "pins"          // the examples, the template patch and the docs pin this release
)

// NotesPath is where a Shipyard release's curated notes live: the format of tesk-core's
// (internal/notes), so one rule set checks both.
func NotesPath(version string) string { return "docs/releases/" + version + ".md" }

// Facts is what the gates read, gathered from git at the commit to tag.
type Facts struct {
	Tag    string
	Commit string
	// TagCommit is the commit a tag of that name points to already; empty when there is
	// none.
	TagCommit string
	// Released are the release tags that exist (for the order).
	Released  []string
	Changelog File
	Notes     File
	CI        CIRecord
	// Pins are the pins of the pinned files at the commit, read as if the tag were on it.
	Pins PinnedRelease
}

// File is a file at the commit.
type File struct {
	Found   bool
	Content []byte
}

// CIRecord is the record `shipyard-release ci` leaves on a commit once .ci/run passed on
// it with a clean working tree (a git note under CINotesRef).
type CIRecord struct {
	Found bool
	// Note is the record as written; its first line is "passed …".
	Note string
}

// CINotesRef is the git notes ref that records CI passes.
const CINotesRef = "refs/notes/shipyard-ci"

// Violation is one gate a tag fails.
type Violation struct {
	Gate    string
	File    string
	Line    int
	Message string
	Details []string
	Fix     string
}

func (v Violation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", v.Gate, v.Message)
	for _, d := range v.Details {
		b.WriteString("\n    " + d)
	}
	if v.Fix != "" {
		b.WriteString("\n    fix: " + v.Fix)
	}
	return b.String()
}

// Evaluate applies every gate to the facts and returns all the violations, not only the
// first: a release is tagged only when there is none.
func Evaluate(f Facts) []Violation {
	var vs []Violation
	version := strings.TrimPrefix(f.Tag, "v")
	vs = append(vs, checkTag(f)...)
	if f.TagCommit != "" && f.TagCommit != f.Commit {
		vs = append(vs, Violation{Gate: GateNotMoved, Message: fmt.Sprintf("tag %s exists already, on commit %s, not %s", f.Tag, short(f.TagCommit), short(f.Commit)),
			Fix: "a release tag never moves: release the next version"})
	}
	vs = append(vs, checkChangelog(f, version)...)
	vs = append(vs, checkNotes(f, version)...)
	vs = append(vs, checkPins(f)...)
	if !f.CI.Found || !strings.HasPrefix(f.CI.Note, "passed") {
		vs = append(vs, Violation{Gate: GateCI, Message: fmt.Sprintf("no record that CI (.ci/run) passed on commit %s", short(f.Commit)),
			Fix: "check out the commit with a clean tree and run scripts/shipyard-release ci, which runs .ci/run and records the pass"})
	}
	return vs
}

func checkTag(f Facts) []Violation {
	if !IsReleaseTag(f.Tag) {
		return []Violation{{Gate: GateTag, Message: fmt.Sprintf("%q is not a release tag", f.Tag),
			Fix: "tag vMAJOR.MINOR.PATCH, optionally with a pre-release: v0.2.0, v0.2.0-rc.1"}}
	}
	v, _ := parseSemver(f.Tag) // the form was checked
	for _, r := range f.Released {
		if r == f.Tag || !IsReleaseTag(r) {
			continue
		}
		if old, err := parseSemver(r); err == nil && !v.GreaterThan(old) {
			return []Violation{{Gate: GateTag, Message: fmt.Sprintf("%s is not above the release %s", f.Tag, r),
				Fix: "release a version above every earlier one"}}
		}
	}
	return nil
}

func checkChangelog(f Facts, version string) []Violation {
	v := Violation{Gate: GateChangelog, File: ChangelogFile}
	if !f.Changelog.Found {
		v.Message = ChangelogFile + " does not exist at the commit"
		v.Fix = "add " + ChangelogFile + " in the Keep a Changelog form, with a section ## [" + version + "] - YYYY-MM-DD"
		return []Violation{v}
	}
	c, problems := ParseChangelog(f.Changelog.Content)
	r, ok := c.Section(version)
	switch {
	case !ok:
		problems = append(problems, notes.Problem{Line: 1, Message: "no section ## [" + version + "] - YYYY-MM-DD"})
	case r.Entries == 0:
		problems = append(problems, notes.Problem{Line: r.Line, Message: "the section of " + version + " lists no change"})
	}
	if ok && r.Link == "" {
		problems = append(problems, notes.Problem{Line: r.Line, Message: "no link reference [" + version + "]: <url of the release or the comparison>"})
	}
	if len(problems) == 0 {
		return nil
	}
	v.Line = problems[0].Line
	v.Message = fmt.Sprintf("%s is not ready for %s (%d problem(s))", ChangelogFile, version, len(problems))
	v.Details = strings.Split(strings.TrimSpace(notes.Format(ChangelogFile, problems)), "\n")
	v.Fix = "move the version's changes from ## [Unreleased] into its dated section, with its link"
	return []Violation{v}
}

func checkNotes(f Facts, version string) []Violation {
	path := NotesPath(version)
	v := Violation{Gate: GateNotes, File: path}
	if !f.Notes.Found {
		v.Message = path + " does not exist at the commit"
		v.Fix = "write the release's curated notes as " + path + " (intro, then ## Features, ## Fixes … with (#issue) at each bullet's end)"
		return []Violation{v}
	}
	problems := notes.Check(path, f.Notes.Content)
	if len(problems) == 0 {
		return nil
	}
	v.Line = problems[0].Line
	v.Message = fmt.Sprintf("%s does not follow the release notes format (%d problem(s))", path, len(problems))
	v.Details = strings.Split(strings.TrimSpace(notes.Format(path, problems)), "\n")
	v.Fix = "fix the notes; the format is tesk-core's (docs/tesk-core.md)"
	return []Violation{v}
}

// checkPins: what users copy from the release pins the release itself.
func checkPins(f Facts) []Violation {
	problems := CheckPinnedRelease(f.Pins)
	for _, p := range f.Pins.Pins {
		if p.Tag != f.Tag {
			problems = append(problems, fmt.Sprintf("%s:%d pins %s, not %s", p.File, p.Line, p, f.Tag))
			break
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return []Violation{{Gate: GatePins, Message: fmt.Sprintf("the pinned files do not pin %s (%d problem(s))", f.Tag, len(problems)),
		Details: problems, Fix: "re-pin to the commit to tag and commit that: scripts/shipyard-release repin " + f.Tag}}
}

func parseSemver(s string) (*goversion.Version, error) {
	return goversion.NewSemver(strings.TrimPrefix(s, "v"))
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
