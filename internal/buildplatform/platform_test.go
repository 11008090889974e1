package buildplatform

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
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
		got, err := Parse(tc.in)
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

func TestTargetName(t *testing.T) {
	if got := TargetName("filer", "linux/arm64"); got != "filer (linux/arm64)" {
		t.Errorf("TargetName = %q", got)
	}
}
