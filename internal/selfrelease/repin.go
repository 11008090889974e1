package selfrelease

import (
	"fmt"
	"slices"
	"strings"
)

// Change is one file a re-pin commit changes: its content at the release commit and at
// the re-pin commit (Found false where the file is missing).
type Change struct {
	Path     string
	Old, New File
}

// CheckRepin applies the rule of the re-pin commit: from the release commit to the commit
// that names it, only pin lines change (in the pinned files, the embedded template
// workflows among them) and the release's own line in CHANGELOG.md; so the module at the
// re-pin commit, which CI ran, is the release's. version is the release's (without v).
// It returns every problem, each naming the file and line.
func CheckRepin(version string, changes []Change) []string {
	var problems []string
	for _, c := range changes {
		switch {
		case c.Path == ChangelogFile:
			problems = append(problems, changelogOnlyNamesTheRelease(version, c)...)
		case !IsPinnedFile(c.Path):
			problems = append(problems, fmt.Sprintf("%s: changed after the release commit, and is no pinned file: the re-pin commit changes pin lines only (release the change in the next version)", c.Path))
		case !c.Old.Found || !c.New.Found:
			problems = append(problems, fmt.Sprintf("%s: added or removed after the release commit: the re-pin commit changes pin lines only", c.Path))
		default:
			if line, ok := samePinsAside(c.Old.Content, c.New.Content); !ok {
				problems = append(problems, fmt.Sprintf("%s:%d: changes more than a pin after the release commit: the re-pin commit changes pin lines only", c.Path, line))
			}
		}
	}
	return problems
}

// changelogOnlyNamesTheRelease: the changelog may gain, or change, one line after the
// release commit: the release line of the version released.
func changelogOnlyNamesTheRelease(version string, c Change) []string {
	if !c.Old.Found || !c.New.Found {
		return []string{ChangelogFile + ": added or removed after the release commit"}
	}
	withoutReleaseLine := func(content []byte) []string {
		lines := strings.Split(string(content), "\n")
		parsed, _ := ParseChangelog(content)
		if r, ok := parsed.Section(version); ok && r.CommitLine > 0 {
			lines = slices.Delete(lines, r.CommitLine-1, r.CommitLine)
			// The blank line written with it goes with it.
			if i := r.CommitLine - 1; i < len(lines) && i > 0 && lines[i-1] == "" && lines[i] == "" {
				lines = slices.Delete(lines, i, i+1)
			}
		}
		return lines
	}
	old, cur := withoutReleaseLine(c.Old.Content), withoutReleaseLine(c.New.Content)
	if line, ok := firstDifference(old, cur); !ok {
		return []string{fmt.Sprintf("%s:%d: changes more than the release line of %s after the release commit: the re-pin commit changes pin lines only", ChangelogFile, line, version)}
	}
	return nil
}

// samePinsAside reports whether old and new are the same but for their pins, and if not,
// the first line of new that differs.
func samePinsAside(old, new []byte) (int, bool) {
	return firstDifference(pinsBlanked(old), pinsBlanked(new))
}

func pinsBlanked(content []byte) []string {
	lines := strings.Split(string(content), "\n")
	for i, l := range lines {
		l = commitPin.ReplaceAllString(l, "<pin>")
		lines[i] = tagPin.ReplaceAllString(l, "<pin>")
	}
	return lines
}

// firstDifference compares two files line by line: ok when equal, else the first line
// (1-based, of b) where they part.
func firstDifference(a, b []string) (int, bool) {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i + 1, false
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b)) + 1, false
	}
	return 0, true
}
