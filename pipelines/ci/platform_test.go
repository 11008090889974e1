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

func TestPublishPlatforms(t *testing.T) {
	got, err := PublishPlatforms(nil)
	if err != nil || len(got) != 2 || got[0] != "linux/amd64" || got[1] != "linux/arm64" {
		t.Errorf("default = %v, %v; want linux/amd64 and linux/arm64", got, err)
	}
	got[0] = "linux/s390x" // the caller's copy: the default stays
	if DefaultPlatforms()[0] != "linux/amd64" {
		t.Error("PublishPlatforms handed out the default itself")
	}
	if got, err := PublishPlatforms([]string{"linux/arm64"}); err != nil || len(got) != 1 || got[0] != "linux/arm64" {
		t.Errorf("configured = %v, %v; want linux/arm64 alone", got, err)
	}
	if _, err := PublishPlatforms([]string{"arm64"}); err == nil {
		t.Error("a malformed platform was accepted")
	}
}
