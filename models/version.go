package models

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"dagger/shipyard/internal/version"
)

// upstreamVersion is an upstream release X.Y.Z in canonical form.
type upstreamVersion struct{ major, minor, patch uint64 }

func (u upstreamVersion) String() string {
	return fmt.Sprintf("%d.%d.%d", u.major, u.minor, u.patch)
}

// packageVersion is <upstream>.<packaging>, e.g. 1.31.5.2.
type packageVersion struct {
	upstream  upstreamVersion
	packaging uint64
}

func (p packageVersion) String() string {
	return p.upstream.String() + "." + strconv.FormatUint(p.packaging, 10)
}

var errNotCanonical = errors.New("not a canonical X.Y.Z version (digits only, no leading zeros)")

// canonicalNumber parses a decimal with no sign, no leading zeros and no
// overflow: the only spelling under which a string and its number are one to
// one, which keeps version strings comparable as numbers.
func canonicalNumber(s string) (uint64, bool) {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

func parseUpstream(s string) (upstreamVersion, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return upstreamVersion{}, fmt.Errorf("upstream version %q: %w", s, errNotCanonical)
	}
	var n [3]uint64
	for i, p := range parts {
		v, ok := canonicalNumber(p)
		if !ok {
			return upstreamVersion{}, fmt.Errorf("upstream version %q: %w", s, errNotCanonical)
		}
		n[i] = v
	}
	return upstreamVersion{n[0], n[1], n[2]}, nil
}

// parseTagged parses a version as it appears in tags, releases or PyPI: an
// optional leading "v", then X.Y.Z.N (full is true) or a bare X.Y.Z.
func parseTagged(s string) (v packageVersion, full, ok bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.Split(s, ".")
	if len(parts) != 3 && len(parts) != 4 {
		return packageVersion{}, false, false
	}
	u, err := parseUpstream(strings.Join(parts[:3], "."))
	if err != nil {
		return packageVersion{}, false, false
	}
	if len(parts) == 3 {
		return packageVersion{upstream: u}, false, true
	}
	n, okN := canonicalNumber(parts[3])
	if !okN {
		return packageVersion{}, false, false
	}
	return packageVersion{upstream: u, packaging: n}, true, true
}

// publishedPackaging reads a published version of up as PyPI compares versions: PEP 440
// normalised, with trailing zero segments dropped. So 1.31.5.01 takes packaging 1, and
// 1.31.5 or 1.31.5.0.0 take packaging 0. Pre-, post-, dev- and local versions are other
// versions than any X.Y.Z.N and take nothing. Our own spelling is read first, so a
// packaging number beyond PEP 440's int range still counts.
func publishedPackaging(s string, up upstreamVersion) (uint64, bool) {
	if v, _, ok := parseTagged(s); ok {
		return v.packaging, v.upstream == up
	}
	p, err := version.ParsePEP440(s)
	if err != nil || p.Epoch() != 0 || p.Local() != "" {
		return 0, false
	}
	r := version.Release(p.Release())
	if p.String() != r.String() {
		return 0, false // a pre-, post- or dev-release
	}
	for len(r) > 4 && r[len(r)-1] == 0 {
		r = r[:len(r)-1]
	}
	if len(r) < 3 || len(r) > 4 {
		return 0, false
	}
	if uint64(r[0]) != up.major || uint64(r[1]) != up.minor || uint64(r[2]) != up.patch {
		return 0, false
	}
	if len(r) == 3 {
		return 0, true
	}
	return uint64(r[3]), true
}

// Allocate chooses the package version <upstream>.<packaging> for a release of
// upstream (an exact X.Y.Z).
//
// published lists every version already taken: GitHub release tags, git tags
// and PyPI versions, yanked ones included, since a published version is never
// reused. drafts lists the tags of draft releases, which reserve a version
// without taking it. Both may carry a leading "v" and may hold other upstreams
// or unrelated strings, which are ignored.
//
// A published version takes every version PyPI treats as the same release
// (publishedPackaging): 1.31.5.01 takes 1.31.5.1, and a bare 1.31.5 takes
// 1.31.5.0, since PEP 440 compares release segments with leading zeros read as
// numbers and trailing zeros dropped. Drafts are our own tags and are read in
// our spelling only.
//
// The highest draft whose packaging is above every published one is reused
// (reusedDraft is true), so a re-run after a failure converges on its own
// reservation instead of taking a new number. Any other draft is stale: it is
// at or below a published number, so it can be neither reused nor hit by the
// new number, which is max(published)+1 and therefore above it. Without a
// reusable draft the result is max(published)+1, compared numerically (10 is
// above 9), or packaging 0 for the first release of an upstream.
//
// The result has no "v"; it is an error for upstream to be malformed, for two
// drafts to reserve the version chosen for reuse (GitHub allows duplicate draft
// tags, and updating either would be a guess), or for the number to overflow.
func Allocate(upstream string, published []string, drafts []string) (version string, reusedDraft bool, err error) {
	up, err := parseUpstream(upstream)
	if err != nil {
		return "", false, fmt.Errorf("allocate: %w", err)
	}
	var maxPublished uint64
	anyPublished := false
	for _, s := range published {
		n, ok := publishedPackaging(s, up)
		if !ok {
			continue
		}
		if !anyPublished || n > maxPublished {
			maxPublished, anyPublished = n, true
		}
	}

	reservations := map[uint64][]string{}
	var best uint64
	anyDraft := false
	for _, s := range drafts {
		v, full, ok := parseTagged(s)
		// A bare X.Y.Z draft is not a reservation in our scheme.
		if !ok || !full || v.upstream != up {
			continue
		}
		if anyPublished && v.packaging <= maxPublished {
			continue // stale
		}
		reservations[v.packaging] = append(reservations[v.packaging], s)
		if !anyDraft || v.packaging > best {
			best, anyDraft = v.packaging, true
		}
	}
	if anyDraft {
		if tags := reservations[best]; len(tags) > 1 {
			return "", false, fmt.Errorf("allocate %s: drafts %q reserve the same version", up, tags)
		}
		return packageVersion{up, best}.String(), true, nil
	}
	if !anyPublished {
		return packageVersion{up, 0}.String(), false, nil
	}
	if maxPublished == math.MaxUint64 {
		return "", false, fmt.Errorf("allocate %s: packaging revision %d cannot be incremented", up, maxPublished)
	}
	return packageVersion{up, maxPublished + 1}.String(), false, nil
}

// ReleaseBranch names the branch that carries releases of a package version's
// upstream minor line: 1.31.5.2 → release-1.31. An upstream X.Y.Z is accepted
// too, and so is a leading "v" as tags carry it.
func ReleaseBranch(version string) (string, error) {
	v, _, ok := parseTagged(version)
	if !ok || strings.TrimSpace(version) != version {
		return "", fmt.Errorf("release branch: %q is not an X.Y.Z or X.Y.Z.N version", version)
	}
	return fmt.Sprintf("release-%d.%d", v.upstream.major, v.upstream.minor), nil
}
