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
		fn     string
		values []string
		want   string // "" = the engine's own platform
		err    bool
	}{
		{"images", nil, "linux/amd64 linux/arm64", false},
		{"push-by-digest", nil, "linux/amd64 linux/arm64", false},
		{"push-platform-by-digest", nil, "linux/amd64 linux/arm64", false},
		{"assemble-index", nil, "linux/amd64 linux/arm64", false},
		{"publish-dev", nil, "linux/amd64 linux/arm64", false},
		{"release", nil, "linux/amd64 linux/arm64", false},
		{"release-push", nil, "linux/amd64 linux/arm64", false},
		{"release-publish", nil, "linux/amd64 linux/arm64", false},
		{"ci", nil, "", false},
		{"scan", nil, "", false},
		{"end-to-end", nil, "", false},
		{"image", nil, "", false},
		{"scan-digests", nil, "", false},
		{"images", []string{"linux/arm64"}, "linux/arm64", false},
		{"ci", []string{"linux/arm64", "linux/amd64"}, "linux/arm64 linux/amd64", false},
		{"release", []string{"arm64"}, "", true},
		{"scan", []string{"linux/arm64", "linux/arm64"}, "", true},
	}
	for _, tc := range tests {
		got, err := PlatformsOf(tc.fn, tc.values)
		var names []string
		for _, p := range got {
			names = append(names, string(p))
		}
		if (err != nil) != tc.err || strings.Join(names, " ") != tc.want {
			t.Errorf("%s %v: %v (%v), want %q", tc.fn, tc.values, names, err, tc.want)
		}
	}
	got, _ := PlatformsOf("release", nil)
	got[0] = "linux/s390x" // the caller's copy: the default stays
	if DefaultPlatforms()[0] != "linux/amd64" {
		t.Error("PlatformsOf handed out the default itself")
	}
}

// A function nobody declared gets no platforms by default: PlatformsOf refuses it, so a
// renamed publishing function cannot silently fall back to the engine's platform.
func TestPlatformsOfAnUndeclaredFunction(t *testing.T) {
	if _, err := PlatformsOf("publish-everything", nil); err == nil || !strings.Contains(err.Error(), "not declared") {
		t.Errorf("err = %v", err)
	}
}
