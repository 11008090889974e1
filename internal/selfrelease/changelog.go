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
