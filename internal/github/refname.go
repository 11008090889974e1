package github

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrRefName is wrapped by the error of a branch or tag name that git refuses (git
// check-ref-format): no such branch or tag can exist, and sent to GitHub's refs API it
// could address another ref (under refs/heads/, ../tags/v1 is the tag v1).
var ErrRefName = errors.New("not a name git accepts for a ref")

// CheckBranch reports whether git accepts name as a branch name (git check-ref-format
// --branch), and is stricter in two places: a name that is not UTF-8, and "@". The error
// names the branch, the rule it breaks and the fix. Call it where a branch name enters
// (a flag, a configuration file) and before a branch becomes a ref.
func CheckBranch(name string) error {
	if name == "HEAD" {
		return refNameError("branch", name, `is "HEAD", which git reserves for the checked-out commit`)
	}
	return checkRefName("branch", name)
}

// CheckTag reports whether git accepts name as a tag name (git check-ref-format of
// refs/tags/<name>), not UTF-8 and "@" refused too, as CheckBranch does.
func CheckTag(name string) error { return checkRefName("tag", name) }

// checkRefName holds name, a kind ("branch" or "tag"), to git's rules for one ref name
// (git check-ref-format; refs.c, check_refname_component) that keep refs/<kind>s/<name>
// one ref.
func checkRefName(kind, name string) error {
	var why string
	switch {
	case name == "":
		why = "is empty"
	case !utf8.ValidString(name):
		why = "is not UTF-8"
	case strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		why = "contains a space or a control character"
	case strings.ContainsAny(name, `~^:?*[\`):
		why = fmt.Sprintf("contains %q", string(name[strings.IndexAny(name, `~^:?*[\`)]))
	case strings.HasPrefix(name, "-"):
		why = "starts with -, which a command line reads as an option"
	case strings.Contains(name, ".."):
		why = `contains ".."`
	case strings.Contains(name, "@{"):
		why = `contains "@{"`
	case name == "@":
		why = `is "@"`
	case strings.HasPrefix(name, "/"):
		why = "starts with /"
	case strings.HasSuffix(name, "/"):
		why = "ends with /"
	case strings.Contains(name, "//"):
		why = `contains "//"`
	case strings.HasSuffix(name, "."):
		why = `ends with "."`
	}
	for part := range strings.SplitSeq(name, "/") {
		switch {
		case why != "":
		case strings.HasPrefix(part, "."):
			why = fmt.Sprintf(`has a component that starts with "." (%q)`, part)
		case strings.HasSuffix(part, ".lock"):
			why = fmt.Sprintf(`has a component that ends with ".lock" (%q)`, part)
		}
	}
	if why != "" {
		return refNameError(kind, name, why)
	}
	return nil
}

func refNameError(kind, name, why string) error {
	return fmt.Errorf("%s %q %s, which git refuses in a ref name (git check-ref-format): %w; give the %s's name as git shows it, e.g. main or release-1.2",
		kind, name, why, ErrRefName, kind)
}
