package upstreams

import (
	"slices"
	"testing"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in   string
		want Version
		ok   bool
	}{
		{"1.2.3", Version{Major: 1, Minor: 2, Patch: 3}, true},
		{"0.0.0", Version{}, true},
		{"10.200.3000", Version{Major: 10, Minor: 200, Patch: 3000}, true},
		{"1.2", Version{}, false},
		{"1.2.3.4", Version{}, false},
		{"01.2.3", Version{}, false},
		{"1.02.3", Version{}, false},
		{"1.2.03", Version{}, false},
		{"v1.2.3", Version{}, false},
		{"1.2.3-rc.1", Version{}, false},
		{"1.2.3+build", Version{}, false},
		{"1..3", Version{}, false},
		{"1.2.", Version{}, false},
		{"", Version{}, false},
		{"+1.2.3", Version{}, false},
		{"1.2.-3", Version{}, false},
		{"1.2.3 ", Version{}, false},
		{"1234567890.0.0", Version{}, false}, // beyond any real release number
		{"１.2.3", Version{}, false},          // full-width digit
	}
	for _, tt := range tests {
		got, err := ParseVersion(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("ParseVersion(%q) error = %v, want ok=%v", tt.in, err, tt.ok)
			continue
		}
		if tt.ok && got != tt.want {
			t.Errorf("ParseVersion(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		if tt.ok && got.String() != tt.in {
			t.Errorf("ParseVersion(%q).String() = %q, want the input back", tt.in, got.String())
		}
	}
}

func TestParseLineAndBound(t *testing.T) {
	for _, tt := range []struct {
		in     string
		line   bool
		bound  bool
		lineIs Line
	}{
		{"1.31", true, true, Line{1, 31}},
		{"0.5", true, true, Line{0, 5}},
		{"1.31.2", false, true, Line{}},
		{"1", false, false, Line{}},
		{"1.031", false, false, Line{}},
		{"v1.31", false, false, Line{}},
	} {
		l, err := ParseLine(tt.in)
		if (err == nil) != tt.line || (tt.line && l != tt.lineIs) {
			t.Errorf("ParseLine(%q) = %v, %v; want ok=%v %v", tt.in, l, err, tt.line, tt.lineIs)
		}
		if _, err := parseBound(tt.in); (err == nil) != tt.bound {
			t.Errorf("parseBound(%q) error = %v, want ok=%v", tt.in, err, tt.bound)
		}
	}
}

// Ordering is numeric: string order would put 1.9.9 above 1.10.0 and 1.2.10 below 1.2.9.
func TestVersionOrderIsNumeric(t *testing.T) {
	in := []string{"1.10.0", "1.9.9", "1.2.10", "1.2.9", "0.99.99", "2.0.0", "1.10.1"}
	var vs []Version
	for _, s := range in {
		v, err := ParseVersion(s)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	slices.SortFunc(vs, Version.Compare)
	var got []string
	for _, v := range vs {
		got = append(got, v.String())
	}
	want := []string{"0.99.99", "1.2.9", "1.2.10", "1.9.9", "1.10.0", "1.10.1", "2.0.0"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted = %v, want %v", got, want)
	}
	a := Version{Major: 1, Minor: 2, Patch: 3, Tag: "v1.2.3"}
	b := Version{Major: 1, Minor: 2, Patch: 3, Tag: "release-1.2.3"}
	if a.Compare(b) != 0 {
		t.Errorf("Compare must ignore tags")
	}
	if (Line{1, 9}).Compare(Line{1, 10}) != -1 || (Line{2, 0}).Compare(Line{1, 99}) != 1 {
		t.Errorf("Line.Compare is not numeric")
	}
}
