package version

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// AcceptedTagForms describes the release tags of tesk-core, for error messages and help.
const AcceptedTagForms = "vX.Y.Z, or vX.Y.Z directly followed by aN, bN or rcN " +
	"(e.g. v0.11.0, v0.11.0rc1), with numbers written without leading zeros"

// releaseTagPattern admits exactly one spelling per version, so that a version maps to a
// single tag and image tag; the alternate spellings PEP 440 normalises are refused.
var releaseTagPattern = regexp.MustCompile(
	`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:(a|b|rc)(0|[1-9][0-9]*))?$`)

// leadingZero finds a number with a leading zero, such as the 01 of v01.2.3 or rc01.
var leadingZero = regexp.MustCompile(`(?:^v|\.|a|b|rc)0[0-9]`)

// ReleaseTag is a release tag of tesk-core, such as v0.11.0 or v0.11.0rc1. The zero value
// is not a release tag; obtain values from ParseReleaseTag.
type ReleaseTag struct {
	tag     string
	version PEP440
}

// ParseReleaseTag parses a git tag name as a release tag, or explains which forms are
// accepted.
func ParseReleaseTag(tag string) (ReleaseTag, error) {
	if !releaseTagPattern.MatchString(tag) {
		return ReleaseTag{}, fmt.Errorf("%q is not a release tag%s: use %s", tag, tagHint(tag), AcceptedTagForms)
	}
	v, err := ParsePEP440(tag[1:])
	if err != nil {
		return ReleaseTag{}, fmt.Errorf("release tag %q: %w", tag, err)
	}
	return ReleaseTag{tag: tag, version: v}, nil
}

// tagHint names the most likely mistake in a refused tag, so the error says what to change.
func tagHint(tag string) string {
	switch {
	case tag == "":
		return " (empty)"
	case strings.IndexFunc(tag, unicode.IsSpace) >= 0:
		return " (it contains whitespace)"
	case strings.HasPrefix(tag, "V"):
		return " (the v must be lowercase)"
	case tag[0] >= '0' && tag[0] <= '9':
		return " (it lacks the leading v)"
	case strings.IndexFunc(tag, unicode.IsUpper) >= 0:
		return " (letters must be lowercase)"
	case leadingZero.MatchString(tag):
		return " (numbers must not have leading zeros)"
	case strings.ContainsAny(tag, "-_+") || strings.Contains(tag, ".post") || strings.Contains(tag, ".dev") ||
		strings.Contains(tag, ".a") || strings.Contains(tag, ".b") || strings.Contains(tag, ".rc"):
		return " (no separator before a, b or rc, and no post, dev or local parts)"
	}
	return ""
}

// Tag returns the tag as given, e.g. "v0.11.0rc1".
func (t ReleaseTag) Tag() string { return t.tag }

// String returns the tag as given, so a ReleaseTag prints as the name users typed.
func (t ReleaseTag) String() string { return t.tag }

// Version returns the version without the v, e.g. "0.11.0rc1": the image tag, the package
// version and the CITATION.cff version of the release.
func (t ReleaseTag) Version() string { return strings.TrimPrefix(t.tag, "v") }

// PEP440 returns the tag's version for comparisons with other PEP 440 versions.
func (t ReleaseTag) PEP440() PEP440 { return t.version }

// Final reports whether the tag is a final release (no a, b or rc).
func (t ReleaseTag) Final() bool { return t.tag != "" && t.version.IsFinal() }

// GitHubPreRelease reports whether the GitHub release of the tag is marked as a
// pre-release: every a, b and rc version, and every version below 1.0.0.
func (t ReleaseTag) GitHubPreRelease() bool {
	r := t.version.release
	return !t.Final() || len(r) == 0 || r[0] == 0
}

// Compare orders release tags by their PEP 440 versions:
// 1.0.0a1 < 1.0.0b1 < 1.0.0rc1 < 1.0.0rc10 < 1.0.0 < 1.0.1a1.
func (t ReleaseTag) Compare(other ReleaseTag) int {
	return t.version.Compare(other.version)
}

// MarshalJSON renders the tag as a JSON string (null for the zero value), as plans print it.
func (t ReleaseTag) MarshalJSON() ([]byte, error) {
	if t.tag == "" {
		return []byte("null"), nil
	}
	return json.Marshal(t.tag)
}

// UnmarshalJSON reads a JSON string and validates it as a release tag; null leaves the zero
// value.
func (t *ReleaseTag) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = ReleaseTag{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("release tag: %w", err)
	}
	parsed, err := ParseReleaseTag(s)
	if err != nil {
		return err
	}
	*t = parsed
	return nil
}

// IsLatest reports whether tag becomes the latest release (the images' "latest" tag and
// GitHub's latest release): it must be a final release tag not below any final release tag
// in published. published may hold tag itself and any other tag names; names that are not
// release tags, and pre-release tags, are ignored. A pre-release tag is never latest. The
// error is for a tag that is not a release tag at all.
func IsLatest(tag string, published []string) (bool, error) {
	t, err := ParseReleaseTag(tag)
	if err != nil {
		return false, fmt.Errorf("latest release: %w", err)
	}
	if !t.Final() {
		return false, nil
	}
	for _, name := range published {
		p, err := ParseReleaseTag(name)
		if err != nil || !p.Final() {
			continue
		}
		if p.Compare(t) > 0 {
			return false, nil
		}
	}
	return true, nil
}
