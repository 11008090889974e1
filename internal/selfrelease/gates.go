package selfrelease

import (
	"fmt"
	"strings"

	goversion "github.com/hashicorp/go-version"

	"dagger/shipyard/internal/notes"
)

// The gates of a Shipyard release, by name: each is a rule the release must pass before
// the forge's release workflow tags it, as release-plan's rules are for a tesk-core tag.
const (
	GateTag       = "release-tag"   // vMAJOR.MINOR.PATCH[-PRERELEASE], above every release
	GateNotMoved  = "not-moved"     // an existing tag of that name is on the release commit
	GateChangelog = "changelog"     // CHANGELOG.md's dated section names the release commit
	GateNotes     = "release-notes" // docs/releases/<version>.md in the curated format
	GateOnMain    = "on-main"       // the release and the commit checked are on origin/main
	GatePins      = "pins"          // the examples, the template patch and the docs pin it
	GateRepin     = "re-pin"        // from the release commit on, only pin lines changed
	GateCI        = "ci-passed"     // the forge's "CI passed" check run succeeded there
)

// NotesPath is where a Shipyard release's curated notes live: the format of tesk-core's
// (internal/notes), so one rule set checks both.
func NotesPath(version string) string { return "docs/releases/" + version + ".md" }

// Facts is what the gates read, gathered from git and the forge. The release commit is
// the one CHANGELOG.md names; the gates run at a later commit of main (the head), the
// re-pin commit or one after it that changes pins only.
type Facts struct {
	Tag string
	// Head is the commit the gates read; empty for a working tree not committed yet.
	Head string
	// Release is the commit the changelog's section of the tag names; empty when none.
	Release string
	// TagCommit is the commit a tag of that name points to already; empty when none.
	TagCommit string
	// Released are the release tags that exist (for the order).
	Released []string
	// Changelog is CHANGELOG.md at the head; Notes the release notes at the release.
	Changelog File
	Notes     File
	// Pins are the pins of the pinned files at the head.
	Pins []Pin
	// Main is what git says of the freshly fetched main.
	Main MainFacts
	// Repin are the files changed from the release commit to the head.
	Repin []Change
	// CI is the forge's check runs on the head; nil where they were not read (a check
	// on a maintainer's machine: the release workflow reads them).
	CI *CheckRuns
}

// MainFacts is where the release and the head stand against main.
type MainFacts struct {
	// Ref is the remote-tracking ref read, freshly fetched: origin/main.
	Ref string
	// ReleaseOnMain: the release commit is an ancestor of (or is) Ref's commit.
	ReleaseOnMain bool
	// ReleaseBeforeHead: the release commit is an ancestor of (or is) the head.
	ReleaseBeforeHead bool
	// Unpushed are the head's commits (HEAD's, for a working tree) that Ref lacks.
	Unpushed []string
}

// File is a file at a commit.
type File struct {
	Found   bool
	Content []byte
}

// Violation is one gate a release fails.
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
	if f.TagCommit != "" && f.TagCommit != f.Release {
		vs = append(vs, Violation{Gate: GateNotMoved, Message: fmt.Sprintf("tag %s exists already, on commit %s, not the release commit %s", f.Tag, short(f.TagCommit), orNone(short(f.Release))),
			Fix: "a release tag never moves: release the next version"})
	}
	vs = append(vs, checkChangelog(f, version)...)
	vs = append(vs, checkNotes(f, version)...)
	if f.Release == "" {
		return vs // the gates below read the release commit
	}
	vs = append(vs, checkMain(f)...)
	if problems := CheckPins(f.Pins, Pin{Commit: f.Release, Tag: f.Tag}); len(problems) > 0 {
		vs = append(vs, Violation{Gate: GatePins, Message: fmt.Sprintf("the pinned files do not pin %s at %s (%d problem(s))", f.Tag, short(f.Release), len(problems)),
			Details: problems, Fix: "re-pin: scripts/shipyard-release repin " + f.Tag + " " + f.Release})
	}
	if problems := CheckRepin(version, f.Repin); len(problems) > 0 {
		vs = append(vs, Violation{Gate: GateRepin, Message: fmt.Sprintf("from the release commit %s to %s, more than pins changed (%d problem(s)): CI did not run the release's module", short(f.Release), headName(f.Head), len(problems)),
			Details: problems, Fix: "release from main as it is: a new release commit, then its re-pin commit alone"})
	}
	if f.CI != nil {
		if why := CIPassed(*f.CI, f.Head); why != "" {
			vs = append(vs, Violation{Gate: GateCI, Message: "no evidence from the forge that CI passed on " + headName(f.Head) + ": " + why,
				Fix: "wait for the CI workflow on main to pass on that commit, or re-run it"})
		}
	}
	return vs
}

func checkMain(f Facts) []Violation {
	var problems []string
	if !f.Main.ReleaseOnMain {
		problems = append(problems, fmt.Sprintf("the release commit %s is not on %s", short(f.Release), f.Main.Ref))
	}
	if len(f.Main.Unpushed) > 0 {
		problems = append(problems, fmt.Sprintf("%d commit(s) not pushed to %s: %s", len(f.Main.Unpushed), f.Main.Ref, strings.Join(f.Main.Unpushed, ", ")))
	}
	if !f.Main.ReleaseBeforeHead {
		problems = append(problems, fmt.Sprintf("the release commit %s is not an ancestor of %s", short(f.Release), headName(f.Head)))
	}
	if len(problems) == 0 {
		return nil
	}
	return []Violation{{Gate: GateOnMain, Message: "a release is reviewed main: " + strings.Join(problems, "; "),
		Fix: "merge the release's pull request, fetch, and name the commit main holds (git fetch origin main)"}}
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
		v.Message = ChangelogFile + " does not exist"
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
	if ok && r.Commit == "" {
		problems = append(problems, notes.Problem{Line: r.Line, Message: "the section of " + version + " names no release commit (" + ReleaseLine("<sha>", "v"+version) + ")"})
	}
	if len(problems) == 0 {
		return nil
	}
	v.Line = problems[0].Line
	v.Message = fmt.Sprintf("%s is not ready for %s (%d problem(s))", ChangelogFile, version, len(problems))
	v.Details = strings.Split(strings.TrimSpace(notes.Format(ChangelogFile, problems)), "\n")
	v.Fix = "merge the version's dated section (its changes, its link) to main; then scripts/shipyard-release repin " + "v" + version + " <that commit> writes its release line"
	return []Violation{v}
}

func checkNotes(f Facts, version string) []Violation {
	path := NotesPath(version)
	v := Violation{Gate: GateNotes, File: path}
	if !f.Notes.Found {
		v.Message = path + " does not exist at the release commit"
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

func headName(head string) string {
	if head == "" {
		return "the working tree"
	}
	return short(head)
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
