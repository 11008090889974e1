// Package selfrelease is Shipyard's own release: the gates a Shipyard tag must pass
// (Evaluate, over Facts gathered from git), the CHANGELOG's Keep a Changelog sections,
// and the pins that name a Shipyard release in the example workflows, the Cloudcoil
// template patch and the docs (FindPins, Repin), which users copy.
package selfrelease

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Module is Shipyard's Git address, as users call it (dagger call -m …, dagger toolchain
// install …).
const Module = "github.com/elixir-cloud-aai/shipyard"

// PinnedFiles are the files that name a Shipyard release, as globs under the repository's
// root: the example workflows and the workflows the Cloudcoil template patch writes (a
// commit, with its tag as a comment, as doctor and Renovate read it), and the docs (the tag).
func PinnedFiles() []string {
	return []string{
		"examples/github-actions/*/*.yml",
		"models/genrepo/template/*.yml",
		"README.md",
		"docs/*.md",
	}
}

// Pin is one place that names a Shipyard release.
type Pin struct {
	File string
	Line int
	// Commit is the full commit SHA pinned; empty when the place names only a tag.
	Commit string
	// Tag is the release tag: the comment after a commit (`@<sha> # v0.1.0`), or the ref
	// itself (`@v0.1.0`); empty for a commit without its tag.
	Tag string
}

// String renders the pin as written: module@commit # tag, or module@tag.
func (p Pin) String() string {
	switch {
	case p.Commit != "" && p.Tag != "":
		return Module + "@" + p.Commit + " # " + p.Tag
	case p.Commit != "":
		return Module + "@" + p.Commit
	}
	return Module + "@" + p.Tag
}

const tagForm = `v(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?`

var (
	commitPin = regexp.MustCompile(regexp.QuoteMeta(Module) + `@([0-9a-f]{40})(?:[ \t]+#[ \t]+(` + tagForm + `))?`)
	tagPin    = regexp.MustCompile(regexp.QuoteMeta(Module) + `@(` + tagForm + `)\b`)
	// semverTag is a tag of Shipyard's own releases: vMAJOR.MINOR.PATCH with an optional
	// pre-release (semver 2.0.0, no build metadata), the form Go modules and Renovate's
	// semver versioning read.
	semverTag = regexp.MustCompile(`^` + tagForm + `$`)
)

// IsReleaseTag reports whether tag is the form of a Shipyard release tag.
func IsReleaseTag(tag string) bool { return semverTag.MatchString(tag) }

// FindPins returns every place content (the file name) names a Shipyard release.
func FindPins(name string, content []byte) []Pin {
	var out []Pin
	for i, line := range strings.Split(string(content), "\n") {
		for _, m := range commitPin.FindAllStringSubmatch(line, -1) {
			out = append(out, Pin{File: name, Line: i + 1, Commit: m[1], Tag: m[2]})
		}
		for _, m := range tagPin.FindAllStringSubmatch(line, -1) {
			out = append(out, Pin{File: name, Line: i + 1, Tag: m[1]})
		}
	}
	return out
}

// Repin rewrites every pin of content to the release tag at commit, as module@commit # tag.
// A pin that names a tag only stays (CheckPins reports it): a tag in the middle of a
// command cannot take a comment after it. It returns the new content and how many pins
// it rewrote.
func Repin(content []byte, commit, tag string) ([]byte, int, error) {
	if !IsReleaseTag(tag) {
		return nil, 0, fmt.Errorf("%q is not a Shipyard release tag (vMAJOR.MINOR.PATCH, optionally -PRERELEASE)", tag)
	}
	if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(commit) {
		return nil, 0, fmt.Errorf("%q is not a full commit SHA", commit)
	}
	n := 0
	out := commitPin.ReplaceAllStringFunc(string(content), func(string) string {
		n++
		return Module + "@" + commit + " # " + tag
	})
	return []byte(out), n, nil
}

// Files expands PinnedFiles under root, sorted, as paths relative to root.
func Files(root string) ([]string, error) {
	var out []string
	for _, g := range PinnedFiles() {
		m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(g)))
		if err != nil {
			return nil, fmt.Errorf("pinned files %s: %w", g, err)
		}
		for _, f := range m {
			rel, err := filepath.Rel(root, f)
			if err != nil {
				return nil, err
			}
			out = append(out, filepath.ToSlash(rel))
		}
	}
	sort.Strings(out)
	return out, nil
}

// CheckPins applies the rule of the pins: every pin is a commit with its tag as a
// comment (module@<sha> # vX.Y.Z, the form Renovate and Dependabot keep), and every pin
// names the same release; when want names a commit and a tag, that one. It returns every
// problem, each naming the file and line.
func CheckPins(pins []Pin, want Pin) []string {
	if len(pins) == 0 {
		return []string{"no file pins a Shipyard release"}
	}
	var problems []string
	first := pins[0]
	if want.Commit != "" {
		first = Pin{File: ChangelogFile, Commit: want.Commit, Tag: want.Tag}
	}
	for _, p := range pins {
		switch {
		case p.Commit == "":
			problems = append(problems, fmt.Sprintf("%s:%d: %s names a tag only: pin the commit, with the tag as a comment (%s@<sha> # <tag>; in a command, SHIPYARD=… then -m \"$SHIPYARD\")", p.File, p.Line, p, Module))
			continue
		case p.Tag == "":
			problems = append(problems, fmt.Sprintf("%s:%d: %s has no tag comment: Renovate and readers need the release it is (… # vX.Y.Z)", p.File, p.Line, p))
			continue
		}
		if p.Tag != first.Tag || p.Commit != first.Commit {
			where := fmt.Sprintf("%s:%d", first.File, first.Line)
			if first.Line == 0 {
				where = first.File
			}
			problems = append(problems, fmt.Sprintf("%s:%d pins %s, %s %s: every file pins the same release (scripts/shipyard-release repin)", p.File, p.Line, p, where, first))
		}
	}
	return problems
}

// IsPinnedFile reports whether path (relative, slash-separated) is one of PinnedFiles.
func IsPinnedFile(path string) bool {
	for _, g := range PinnedFiles() {
		if ok, _ := filepath.Match(g, path); ok {
			return true
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
