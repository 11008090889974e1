package ci

import (
	"strings"
	"testing"
)

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
