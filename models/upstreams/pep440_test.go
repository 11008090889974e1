package upstreams

import "testing"

func TestParseFinalPy(t *testing.T) {
	tests := []struct {
		in    string
		final bool
		line  Line
	}{
		{"0.5.3", true, Line{0, 5}},
		{"0.5", true, Line{0, 5}},
		{"1.0", true, Line{1, 0}},
		{"0.6.0rc1", false, Line{}},
		{"0.6.0a1", false, Line{}},
		{"0.6.0b2", false, Line{}},
		{"0.6.0.dev1", false, Line{}},
		{"0.6.0.post1", false, Line{}}, // final in PEP 440, but never selected: conservative
		{"0.6.0+local", false, Line{}},
		{"1", false, Line{}},
		{"1.2.3.4", false, Line{}},
		{"v0.5.3", false, Line{}},
		{"0..3", false, Line{}},
		{"", false, Line{}},
	}
	for _, tt := range tests {
		v, ok := parseFinalPy(tt.in)
		if ok != tt.final {
			t.Errorf("parseFinalPy(%q) final = %v, want %v", tt.in, ok, tt.final)
			continue
		}
		if ok && v.line() != tt.line {
			t.Errorf("parseFinalPy(%q).line() = %v, want %v", tt.in, v.line(), tt.line)
		}
	}
	a, _ := parseFinalPy("0.5")
	b, _ := parseFinalPy("0.5.0")
	c, _ := parseFinalPy("0.5.10")
	d, _ := parseFinalPy("0.5.9")
	if a.compare(b) != 0 {
		t.Errorf("0.5 and 0.5.0 must be equal, as PEP 440 pads with zeros")
	}
	if c.compare(d) != 1 {
		t.Errorf("0.5.10 must sort above 0.5.9")
	}
}

func TestCloudcoilRequirement(t *testing.T) {
	for _, tt := range []struct {
		c    Cloudcoil
		want string
	}{
		{Cloudcoil{Package: "cloudcoil", Version: "0.5.3", Minor: "0.5"}, "cloudcoil>=0.5.3,<0.6"},
		{Cloudcoil{Package: "cloudcoil", Version: "1.9", Minor: "1.9"}, "cloudcoil>=1.9,<1.10"},
		{Cloudcoil{Package: "cloudcoil", Version: "0.5.3rc1", Minor: "0.5"}, ""},
		{Cloudcoil{Package: "cloudcoil", Version: "0.5.3", Minor: ">=0.5"}, ""},
	} {
		if got := tt.c.Requirement(); got != tt.want {
			t.Errorf("%+v.Requirement() = %q, want %q", tt.c, got, tt.want)
		}
	}
}
