package upstreams

import (
	"fmt"
	"regexp"

	goversion "github.com/hashicorp/go-version"
)

// Version is a final upstream release, exactly MAJOR.MINOR.PATCH. Tag records the Git tag it
// was read from, when known, so release links point at the real tag even when the tag is
// spelled through a pattern; it takes no part in comparisons.
type Version struct {
	Major, Minor, Patch int
	Tag                 string
}

// Line is a minor release line, MAJOR.MINOR (e.g. 1.31): the unit a matrix entry tracks.
type Line struct {
	Major, Minor int
}

// finalRelease and minorLine are the only spellings accepted before go-version reads the
// numbers. go-version alone is lenient on purpose (it reads v1.2, 1.2, 1.2.3.4 and
// 1.2.3-rc.1), and each of those is a trap in an upstream's tag list: a moving tag, a
// post-release suffix, a pre-release. Numbers have at most 9 digits so they fit an int.
var (
	finalRelease = regexp.MustCompile(`^(?:0|[1-9][0-9]{0,8})\.(?:0|[1-9][0-9]{0,8})\.(?:0|[1-9][0-9]{0,8})$`)
	minorLine    = regexp.MustCompile(`^(?:0|[1-9][0-9]{0,8})\.(?:0|[1-9][0-9]{0,8})$`)
)

// ParseVersion reads exactly "X.Y.Z" with decimal components and no leading zeros. Anything
// else — a "v", a pre-release or build suffix, a fourth component — is not a final release.
func ParseVersion(s string) (Version, error) {
	if !finalRelease.MatchString(s) {
		return Version{}, fmt.Errorf("version %q: want exactly MAJOR.MINOR.PATCH", s)
	}
	gv, err := goversion.NewSemver(s)
	if err != nil {
		return Version{}, fmt.Errorf("version %q: %w", s, err)
	}
	seg := gv.Segments()
	return Version{Major: seg[0], Minor: seg[1], Patch: seg[2]}, nil
}

// ParseLine reads exactly "X.Y" (a minor line such as "1.31").
func ParseLine(s string) (Line, error) {
	if !minorLine.MatchString(s) {
		return Line{}, fmt.Errorf("minor line %q: want exactly MAJOR.MINOR", s)
	}
	v, err := ParseVersion(s + ".0")
	if err != nil {
		return Line{}, fmt.Errorf("minor line %q: %w", s, err)
	}
	return v.Line(), nil
}

// parseBound reads a since/until bound: a line "X.Y" (meaning X.Y.0) or a version "X.Y.Z".
func parseBound(s string) (Version, error) {
	if l, err := ParseLine(s); err == nil {
		return l.first(), nil
	}
	v, err := ParseVersion(s)
	if err != nil {
		return Version{}, fmt.Errorf("bound %q: want MAJOR.MINOR or MAJOR.MINOR.PATCH", s)
	}
	return v, nil
}

// String is "X.Y.Z", without any tag prefix.
func (v Version) String() string {
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// semver is v as go-version holds it; the struct stays comparable so it can key maps.
func (v Version) semver() *goversion.Version {
	return goversion.Must(goversion.NewSemver(v.String()))
}

// Line is the minor line the version belongs to.
func (v Version) Line() Line { return Line{Major: v.Major, Minor: v.Minor} }

// Compare orders versions as go-version does (numerically): -1, 0 or +1. The tag is
// ignored.
func (v Version) Compare(o Version) int {
	return v.semver().Compare(o.semver())
}

// String is "X.Y".
func (l Line) String() string { return fmt.Sprintf("%d.%d", l.Major, l.Minor) }

// first is the line's first release, X.Y.0.
func (l Line) first() Version { return Version{Major: l.Major, Minor: l.Minor} }

// Compare orders lines numerically: -1, 0 or +1.
func (l Line) Compare(o Line) int {
	return l.first().Compare(o.first())
}

// The ranges the update policies decide with, as go-version constraints.

// patchesFrom is every release of v's minor line from v on: "~> X.Y.Z", that is
// >= X.Y.Z, < X.(Y+1).0. A tracked or maintained line takes its patch updates from here.
func patchesFrom(v Version) goversion.Constraints {
	return mustConstraint("~> " + v.String())
}

// releasesOf is every release of the minor line: "~> X.Y.0". Cloudcoil's updates are
// applied within its current minor only.
func releasesOf(l Line) goversion.Constraints {
	return patchesFrom(l.first())
}

// beyond is every release of a newer minor or major than the line: ">= X.(Y+1).0". Those
// are proposed or reported, never applied.
func beyond(l Line) goversion.Constraints {
	return mustConstraint(fmt.Sprintf(">= %d.%d.0", l.Major, l.Minor+1))
}

// mustConstraint builds a constraint from numbers this package formatted itself. Should
// one not parse (only a hand-built Version with a negative number could cause it), the
// result admits nothing, so no update is taken on a range that was not understood.
func mustConstraint(s string) goversion.Constraints {
	c, err := goversion.NewConstraint(s)
	if err != nil {
		return admitsNothing
	}
	return c
}

// admitsNothing is below every release: versions here are never negative.
var admitsNothing = goversion.MustConstraints(goversion.NewConstraint("< 0.0.0"))

// newestIn returns the highest of vs that c admits.
func newestIn(vs []Version, c goversion.Constraints) (Version, bool) {
	var best Version
	found := false
	for _, v := range vs {
		if c.Check(v.semver()) && (!found || v.Compare(best) > 0) {
			best, found = v, true
		}
	}
	return best, found
}
