package upstreams

import (
	"fmt"
	"strconv"
	"strings"
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

// ParseVersion reads exactly "X.Y.Z" with decimal components and no leading zeros. Anything
// else — a "v", a pre-release or build suffix, a fourth component — is not a final release.
func ParseVersion(s string) (Version, error) {
	parts, ok := splitNumbers(s, 3)
	if !ok {
		return Version{}, fmt.Errorf("version %q: want exactly MAJOR.MINOR.PATCH", s)
	}
	return Version{Major: parts[0], Minor: parts[1], Patch: parts[2]}, nil
}

// ParseLine reads exactly "X.Y" (a minor line such as "1.31").
func ParseLine(s string) (Line, error) {
	parts, ok := splitNumbers(s, 2)
	if !ok {
		return Line{}, fmt.Errorf("minor line %q: want exactly MAJOR.MINOR", s)
	}
	return Line{Major: parts[0], Minor: parts[1]}, nil
}

// parseBound reads a since/until bound: a line "X.Y" (meaning X.Y.0) or a version "X.Y.Z".
func parseBound(s string) (Version, error) {
	if l, err := ParseLine(s); err == nil {
		return Version{Major: l.Major, Minor: l.Minor}, nil
	}
	v, err := ParseVersion(s)
	if err != nil {
		return Version{}, fmt.Errorf("bound %q: want MAJOR.MINOR or MAJOR.MINOR.PATCH", s)
	}
	return v, nil
}

// splitNumbers splits s on dots into exactly n canonical decimal numbers.
func splitNumbers(s string, n int) ([]int, bool) {
	fields := strings.Split(s, ".")
	if len(fields) != n {
		return nil, false
	}
	out := make([]int, n)
	for i, f := range fields {
		x, ok := canonicalNumber(f)
		if !ok {
			return nil, false
		}
		out[i] = x
	}
	return out, true
}

// canonicalNumber accepts "0" or a digit string without a leading zero that fits an int;
// "01" is rejected because tags spelled that way are not the upstream's release scheme.
func canonicalNumber(f string) (int, bool) {
	if f == "" || len(f) > 9 || (len(f) > 1 && f[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(f); i++ {
		if f[i] < '0' || f[i] > '9' {
			return 0, false
		}
	}
	x, err := strconv.Atoi(f)
	return x, err == nil
}

// String is "X.Y.Z", without any tag prefix.
func (v Version) String() string {
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// Line is the minor line the version belongs to.
func (v Version) Line() Line { return Line{Major: v.Major, Minor: v.Minor} }

// Compare orders versions numerically: -1, 0 or +1. The tag is ignored.
func (v Version) Compare(o Version) int {
	if c := cmpInt(v.Major, o.Major); c != 0 {
		return c
	}
	if c := cmpInt(v.Minor, o.Minor); c != 0 {
		return c
	}
	return cmpInt(v.Patch, o.Patch)
}

// String is "X.Y".
func (l Line) String() string { return fmt.Sprintf("%d.%d", l.Major, l.Minor) }

// Compare orders lines numerically: -1, 0 or +1.
func (l Line) Compare(o Line) int {
	if c := cmpInt(l.Major, o.Major); c != 0 {
		return c
	}
	return cmpInt(l.Minor, o.Minor)
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
