// Package conventional checks pull request titles the way tesk-core's "PR title" CI job does:
// the default rules of amannn/action-semantic-pull-request (a Conventional Commits header with
// one of the default types and a non-empty subject), plus tesk-core's own limit of 50
// characters, because squash merges use the title as the commit message.
//
// Parse applies the checker's rules alone; CheckTitle adds the length limit. Both return a
// *TitleError whose Message quotes the checker's wording, so a contributor who has seen the
// GitHub job fail recognises the same error locally.
package conventional

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxTitleLength is tesk-core's limit on a title, in Unicode characters (runes).
const MaxTitleLength = 50

// Types returns the checker's default types (the keys of conventional-commit-types 3.0.0).
// The checker compares them case-sensitively, so "Feat" is not "feat".
func Types() []string {
	return []string{"feat", "fix", "docs", "style", "refactor", "perf", "test", "build", "ci", "chore", "revert"}
}

// headerPattern is the checker's headerPattern, /^(\w*)(?:\((.*)\))?!?: (.*)$/, with JavaScript's
// "." (which excludes line terminators) spelled out, since Go's "." also matches \r, U+2028 and
// U+2029. RE2's leftmost-first submatches equal the backtracking engine's for this pattern.
var headerPattern = regexp.MustCompile(`^(\w*)(?:\(([^\n\r\x{2028}\x{2029}]*)\))?!?: ([^\n\r\x{2028}\x{2029}]*)$`)

// breakingPattern is the checker's breakingHeaderPattern, /^(\w*)(?:\((.*)\))?!: (.*)$/.
var breakingPattern = regexp.MustCompile(`^(\w*)(?:\(([^\n\r\x{2028}\x{2029}]*)\))?!: ([^\n\r\x{2028}\x{2029}]*)$`)

// Rule names the rule a title breaks.
type Rule string

const (
	// RuleNoType: the header does not match, or its type is empty.
	RuleNoType Rule = "no-type"
	// RuleNoSubject: nothing follows ": ".
	RuleNoSubject Rule = "no-subject"
	// RuleUnknownType: the type is not one of Types.
	RuleUnknownType Rule = "unknown-type"
	// RuleTooLong: more than MaxTitleLength characters (tesk-core's rule, not the checker's).
	RuleTooLong Rule = "too-long"
)

// TitleError is one broken rule: which one, and a message that says how to fix it.
type TitleError struct {
	Title   string
	Rule    Rule
	Message string
}

func (e *TitleError) Error() string { return e.Message }

// Title is a parsed header. Scope is empty for "feat():" as for "feat:", because the checker
// treats an empty capture as no scope.
type Title struct {
	Type     string
	Scope    string
	Breaking bool
	Subject  string
}

// Parse applies the checker's default rules, in the checker's order: header and type present,
// subject present, type known.
func Parse(title string) (Title, error) {
	m := headerPattern.FindStringSubmatch(title)
	if m == nil || m[1] == "" {
		return Title{}, &TitleError{Title: title, Rule: RuleNoType, Message: fmt.Sprintf(
			"No release type found in pull request title %q. Start the title with a type, a colon and a space, "+
				"e.g. \"fix: handle empty input\"; types: %s", title, strings.Join(Types(), ", "))}
	}
	// The parser marks a header breaking when its second pattern matches too; with a greedy
	// scope the two patterns can split a title differently, so this is not just "has a !".
	t := Title{Type: m[1], Scope: m[2], Subject: m[3], Breaking: breakingPattern.MatchString(title)}
	if t.Subject == "" {
		return Title{}, &TitleError{Title: title, Rule: RuleNoSubject, Message: fmt.Sprintf(
			"No subject found in pull request title %q. Describe the change after %q.", title, ": ")}
	}
	if !slices.Contains(Types(), t.Type) {
		msg := fmt.Sprintf("Unknown release type %q found in pull request title %q. Use one of: %s",
			t.Type, title, strings.Join(Types(), ", "))
		if lower := strings.ToLower(t.Type); slices.Contains(Types(), lower) {
			msg += fmt.Sprintf(" (types are case-sensitive: write %q)", lower)
		}
		return Title{}, &TitleError{Title: title, Rule: RuleUnknownType, Message: msg}
	}
	return t, nil
}

// CheckTitle applies the checker's rules and tesk-core's length limit. It returns nil, a single
// *TitleError, or, when a title breaks a checker rule and is also too long, both joined (in
// that order), so the contributor fixes everything in one edit. errors.As finds the first.
func CheckTitle(title string) error {
	_, err := Parse(title)
	if n := utf8.RuneCountInString(title); n > MaxTitleLength {
		long := &TitleError{Title: title, Rule: RuleTooLong, Message: fmt.Sprintf(
			"Pull request title %q is %d characters; at most %d are allowed, because squash merges use it "+
				"as the commit message. Shorten it by %d.", title, n, MaxTitleLength, n-MaxTitleLength)}
		if err == nil {
			return long
		}
		return errors.Join(err, long)
	}
	return err
}

// Errors lists the *TitleError values in an error returned by CheckTitle or Parse, so a
// caller can print every broken rule.
func Errors(err error) []*TitleError {
	switch e := err.(type) {
	case nil:
		return nil
	case *TitleError:
		return []*TitleError{e}
	case interface{ Unwrap() []error }:
		var out []*TitleError
		for _, inner := range e.Unwrap() {
			out = append(out, Errors(inner)...)
		}
		return out
	}
	var te *TitleError
	if errors.As(err, &te) {
		return []*TitleError{te}
	}
	return nil
}
