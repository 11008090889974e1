package upstreams

import (
	"strconv"
	"strings"
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
	fields := strings.Split(s, ".")
	if len(fields) < 2 || len(fields) > 3 {
		return pyVersion{}, false
	}
	v := pyVersion{text: s}
	for i, f := range fields {
		if f == "" || len(f) > 9 {
			return pyVersion{}, false
		}
		for j := 0; j < len(f); j++ {
			if f[j] < '0' || f[j] > '9' {
				return pyVersion{}, false
			}
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return pyVersion{}, false
		}
		v.parts[i] = n
	}
	return v, true
}

func (v pyVersion) compare(o pyVersion) int {
	for i := range v.parts {
		if c := cmpInt(v.parts[i], o.parts[i]); c != 0 {
			return c
		}
	}
	return 0
}

func (v pyVersion) line() Line { return Line{Major: v.parts[0], Minor: v.parts[1]} }
