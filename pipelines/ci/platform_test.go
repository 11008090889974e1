package ci

import (
	"strings"
	"testing"
)

func TestParsePlatforms(t *testing.T) {
	tests := []struct {
		in   []string
		want string
		err  string
	}{
		{nil, "", ""},
		{[]string{"linux/amd64", "linux/arm64"}, "linux/amd64 linux/arm64", ""},
		{[]string{"linux/arm64/v8"}, "linux/arm64/v8", ""},
		{[]string{"linux"}, "", "want os/arch"},
		{[]string{"linux/"}, "", "want os/arch"},
		{[]string{"Linux/AMD64"}, "", "lower case"},
		{[]string{"linux/amd64/v2/x"}, "", "want os/arch"},
		{[]string{"linux/amd64", "linux/amd64"}, "", "given twice"},
	}
	for _, tc := range tests {
		got, err := ParsePlatforms(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		var names []string
		for _, p := range got {
			names = append(names, string(p))
		}
		if err != nil || strings.Join(names, " ") != tc.want {
			t.Errorf("%v: %v (%v), want %q", tc.in, names, err, tc.want)
		}
	}
}

func TestPlatformsOf(t *testing.T) {
	tests := []struct {
		published bool
		values    []string
		want      string // "" = the engine's own platform
		err       bool
	}{
		{true, nil, "linux/amd64 linux/arm64", false},
		{false, nil, "", false},
		{true, []string{"linux/arm64"}, "linux/arm64", false},
		{false, []string{"linux/arm64", "linux/amd64"}, "linux/arm64 linux/amd64", false},
		{true, []string{"arm64"}, "", true},
		{false, []string{"linux/arm64", "linux/arm64"}, "", true},
	}
	for _, tc := range tests {
		got, err := PlatformsOf(tc.published, tc.values)
		var names []string
		for _, p := range got {
			names = append(names, string(p))
		}
		if (err != nil) != tc.err || strings.Join(names, " ") != tc.want {
			t.Errorf("published %v, %v: %v (%v), want %q", tc.published, tc.values, names, err, tc.want)
		}
	}
	got, _ := PlatformsOf(true, nil)
	got[0] = "linux/s390x" // the caller's copy: the default stays
	if DefaultPlatforms()[0] != "linux/amd64" {
		t.Error("PlatformsOf handed out the default itself")
	}
}
