package upstreams

import (
	"dagger/shipyard/internal/version"
)

// pyVersion is a final PEP 440 release of the form X.Y or X.Y.Z. PyPI serves normalised
// version strings, so this is all Cloudcoil's selection needs: anything with a letter
// (a, b, rc, dev, post, local +…) or another shape is treated as not final and never
// selected — a conservative reading that can only skip an update, never pick a wrong one.
type pyVersion struct {
	v    Version // X.Y reads as X.Y.0, as PEP 440 pads with zeros
	text string
}

// parseFinalPy reads a final X.Y or X.Y.Z release; X.Y equals X.Y.0 as in PEP 440.
func parseFinalPy(s string) (pyVersion, bool) {
	r, err := version.ParseRelease(s)
	if err != nil || len(r) < 2 || len(r) > 3 {
		return pyVersion{}, false
	}
	v := Version{Major: r[0], Minor: r[1]}
	if len(r) == 3 {
		v.Patch = r[2]
	}
	return pyVersion{v: v, text: s}, true
}

func (p pyVersion) compare(o pyVersion) int { return p.v.Compare(o.v) }

func (p pyVersion) line() Line { return p.v.Line() }
