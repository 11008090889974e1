package selfrelease

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"dagger/shipyard/internal/notes"
)

// ChangelogFile is Shipyard's changelog, in the Keep a Changelog 1.1.0 form: a section per
// release, newest first, under "## [Unreleased]".
const ChangelogFile = "CHANGELOG.md"

// Release is one release's section of the changelog.
type Release struct {
	Version string
	// Date is the release date as written (YYYY-MM-DD).
	Date string
	Line int
	// Entries counts the bullets under its change-type headings.
	Entries int
	// Link is the reference definition's URL ([X.Y.Z]: https://…), empty when missing.
	Link string
	// Commit is the release's commit, as the section's release line names it
	// ("Released as <module>@<sha> # vX.Y.Z"); empty until the re-pin commit writes it.
	Commit string
	// CommitLine is the release line's number; CommitTag the tag it names.
	CommitLine int
	CommitTag  string
}

// Changelog is what the changelog's rules read.
type Changelog struct {
	Releases []Release
	// Unreleased is whether the "## [Unreleased]" section is there.
	Unreleased bool
}

// changeTypes are Keep a Changelog's headings of a release section.
var changeTypes = map[string]bool{"Added": true, "Changed": true, "Deprecated": true, "Removed": true, "Fixed": true, "Security": true}

var (
	releaseHeading = regexp.MustCompile(`^## \[([^\]]+)\](?: - (\S+))?\s*$`)
	linkDef        = regexp.MustCompile(`^\[([^\]]+)\]:\s*(\S+)\s*$`)
)

// ParseChangelog reads the changelog and returns its sections with every problem of form:
// a section heading that is not "## [X.Y.Z] - YYYY-MM-DD" (or "## [Unreleased]"), a
// change type outside Keep a Changelog's, a version twice, versions not newest first.
func ParseChangelog(content []byte) (Changelog, []notes.Problem) {
	var c Changelog
	var problems []notes.Problem
	add := func(line int, format string, args ...any) {
		problems = append(problems, notes.Problem{Line: line, Message: fmt.Sprintf(format, args...)})
	}
	links := map[string]string{}
	seen := map[string]int{}
	current := -1
	for i, raw := range strings.Split(strings.TrimPrefix(string(content), "\uFEFF"), "\n") {
		n, line := i+1, strings.TrimRight(raw, "\r")
		switch {
		case strings.HasPrefix(line, "## "):
			current = -1
			m := releaseHeading.FindStringSubmatch(line)
			if m == nil {
				add(n, "a section heading is \"## [X.Y.Z] - YYYY-MM-DD\" or \"## [Unreleased]\", not %q", line)
				continue
			}
			if m[1] == "Unreleased" {
				c.Unreleased = true
				continue
			}
			if _, err := time.Parse(time.DateOnly, m[2]); err != nil {
				add(n, "release %s has no date YYYY-MM-DD after \" - \"", m[1])
			}
			if first, dup := seen[m[1]]; dup {
				add(n, "release %s has a section already, at line %d", m[1], first)
			}
			seen[m[1]] = n
			c.Releases = append(c.Releases, Release{Version: m[1], Date: m[2], Line: n})
			current = len(c.Releases) - 1
		case strings.HasPrefix(line, "### "):
			if kind := strings.TrimSpace(strings.TrimPrefix(line, "### ")); !changeTypes[kind] {
				add(n, "%q is not a Keep a Changelog change type (Added, Changed, Deprecated, Removed, Fixed, Security)", kind)
			}
		case strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* "):
			if current >= 0 {
				c.Releases[current].Entries++
			}
		case strings.HasPrefix(line, releaseLinePrefix):
			m := commitPin.FindStringSubmatch(line)
			switch {
			case current < 0:
				add(n, "a release line belongs in a release's section, under its heading")
			case m == nil || m[2] == "" || strings.TrimSpace(line) != ReleaseLine(m[1], m[2]):
				add(n, "a release line is %q", ReleaseLine("<40 hex digits>", "v"+c.Releases[current].Version))
			case m[2] != "v"+c.Releases[current].Version:
				add(n, "the release line of %s names %s", c.Releases[current].Version, m[2])
			case c.Releases[current].Commit != "":
				add(n, "release %s has a release line already, at line %d", c.Releases[current].Version, c.Releases[current].CommitLine)
			default:
				c.Releases[current].Commit, c.Releases[current].CommitLine, c.Releases[current].CommitTag = m[1], n, m[2]
			}
		default:
			if m := linkDef.FindStringSubmatch(line); m != nil {
				links[m[1]] = m[2]
			}
		}
	}
	for i := range c.Releases {
		c.Releases[i].Link = links[c.Releases[i].Version]
	}
	problems = append(problems, orderProblems(c.Releases)...)
	return c, problems
}

// releaseLinePrefix opens the line of a release's section that names its commit.
const releaseLinePrefix = "Released as "

// ReleaseLine is the line of a release's section that names its commit, in the pin form
// users copy: the re-pin commit writes it, as a commit cannot name its own hash.
func ReleaseLine(commit, tag string) string {
	return releaseLinePrefix + Module + "@" + commit + " # " + tag
}

// SetReleaseLine returns content with the section of version naming commit as its
// release: the release line is replaced, or written under the section's heading.
func SetReleaseLine(content []byte, version, commit string) ([]byte, error) {
	c, problems := ParseChangelog(content)
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s: %s", ChangelogFile, strings.TrimSpace(notes.Format(ChangelogFile, problems)))
	}
	r, ok := c.Section(version)
	if !ok {
		return nil, fmt.Errorf("%s has no section ## [%s] - YYYY-MM-DD: write the release's section first", ChangelogFile, version)
	}
	lines := strings.Split(string(content), "\n")
	line := ReleaseLine(commit, "v"+version)
	if r.CommitLine > 0 {
		lines[r.CommitLine-1] = line
	} else {
		// Under the heading, after the blank line that follows it.
		at := r.Line
		lines = append(lines[:at], append([]string{"", line}, lines[at:]...)...)
	}
	return []byte(strings.Join(lines, "\n")), nil
}

// orderProblems reports releases that are not newest first, by semver order.
func orderProblems(releases []Release) []notes.Problem {
	var out []notes.Problem
	for i := 1; i < len(releases); i++ {
		prev, cur := releases[i-1], releases[i]
		a, errA := parseSemver(prev.Version)
		b, errB := parseSemver(cur.Version)
		if errA != nil || errB != nil {
			continue // the version's own rule reports it
		}
		if !a.GreaterThan(b) {
			out = append(out, notes.Problem{Line: cur.Line, Message: fmt.Sprintf("release %s comes after %s: list releases newest first", cur.Version, prev.Version)})
		}
	}
	return out
}

// Section returns the changelog's section of version.
func (c Changelog) Section(version string) (Release, bool) {
	for _, r := range c.Releases {
		if r.Version == version {
			return r, true
		}
	}
	return Release{}, false
}

// Newest is the version of the changelog's first release section: the release it
// prepares, or the latest one; empty when it has none.
func (c Changelog) Newest() string {
	if len(c.Releases) == 0 {
		return ""
	}
	return c.Releases[0].Version
}

// UnreleasedMark marks, in the README and docs/, what main documents and the pinned
// release lacks: on the line itself, in the heading of its section, or in the line that
// introduces its code block.
const UnreleasedMark = "(unreleased)"

// MarkedUnreleased reports whether line (1-based) of a Markdown document is marked
// UnreleasedMark: the line, the nearest heading above it, or, inside a fenced code block,
// the last line of prose before the fence.
func MarkedUnreleased(content []byte, line int) bool {
	lines := strings.Split(string(content), "\n")
	if line < 1 || line > len(lines) {
		return false
	}
	marked := func(s string) bool { return strings.Contains(strings.ToLower(s), UnreleasedMark) }
	if marked(lines[line-1]) {
		return true
	}
	fence, inBlock := -1, false
	for i := 0; i < line-1; i++ {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
			inBlock = !inBlock
			if inBlock {
				fence = i
			}
		}
	}
	if inBlock {
		for i := fence - 1; i >= 0; i-- {
			if strings.TrimSpace(lines[i]) != "" {
				if marked(lines[i]) {
					return true
				}
				break
			}
		}
	}
	for i := line - 2; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "#") && !(inBlock && i > fence) {
			return marked(lines[i])
		}
	}
	return false
}
