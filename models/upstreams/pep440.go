package upstreams

import (
	"dagger/shipyard/internal/version"
)

// pyVersion is a final PEP 440 release of the form X.Y or X.Y.Z. PyPI serves normalised
// version strings, so this is all Cloudcoil's selection needs: anything with a letter
// (a, b, rc, dev, post, local +…) or another shape is treated as not final and never
// selected — a conservative reading that can only skip an update, never pick a wrong one.
type pyVersion struct {
	parts [3]int
	text  string
}

// parseFinalPy reads a final X.Y or X.Y.Z release; X.Y equals X.Y.0 as in PEP 440.
func parseFinalPy(s string) (pyVersion, bool) {
	r, err := version.ParseRelease(s)
	if err != nil || len(r) < 2 || len(r) > 3 {
		return pyVersion{}, false
	}
	v := pyVersion{text: s}
	copy(v.parts[:], r)
	return v, true
}

func (v pyVersion) compare(o pyVersion) int {
	return version.Release(v.parts[:]).Compare(version.Release(o.parts[:]))
}

func (v pyVersion) line() Line { return Line{Major: v.parts[0], Minor: v.parts[1]} }
