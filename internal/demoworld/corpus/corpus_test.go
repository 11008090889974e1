package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRepoRootHoldsManifest(t *testing.T) {
	if _, err := os.Stat(filepath.Join(RepoRoot(t), "dagger.json")); err != nil {
		t.Fatalf("dagger.json not at the root found: %v", err)
	}
}

func TestReadCorpusFile(t *testing.T) {
	b := Read(t, "pep440", "ordered.txt")
	if len(b) == 0 {
		t.Fatal("pep440/ordered.txt is empty")
	}
}

func TestWhenMissing(t *testing.T) {
	cases := []struct {
		ci, found bool
		want      Verdict
	}{
		{ci: false, found: true, want: Use},
		{ci: true, found: true, want: Use},
		{ci: false, found: false, want: Skip},
		{ci: true, found: false, want: Fail},
	}
	for _, tc := range cases {
		if got := WhenMissing(tc.ci, tc.found); got != tc.want {
			t.Errorf("WhenMissing(ci %v, found %v) = %v, want %v", tc.ci, tc.found, got, tc.want)
		}
	}
}

// verdictTB records how Dir ended a test instead of ending it.
type verdictTB struct {
	testing.TB
	fatal, skip string
}

func (v *verdictTB) Helper() {}

func (v *verdictTB) Fatalf(format string, args ...any) { v.fatal = fmt.Sprintf(format, args...) }

func (v *verdictTB) Skipf(format string, args ...any) { v.skip = fmt.Sprintf(format, args...) }

func TestDirMissingFailsOnlyInCI(t *testing.T) {
	cases := []struct {
		ci                 string
		wantFail, wantSkip bool
	}{
		{ci: "", wantSkip: true},
		{ci: "true", wantFail: true},
	}
	for _, tc := range cases {
		t.Run("CI="+tc.ci, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			v := &verdictTB{TB: t}
			Dir(v, "no-such-corpus")
			if (v.fatal != "") != tc.wantFail || (v.skip != "") != tc.wantSkip {
				t.Fatalf("fatal %q, skip %q; want fail %v, skip %v", v.fatal, v.skip, tc.wantFail, tc.wantSkip)
			}
			if msg := v.fatal + v.skip; !strings.Contains(msg, "../shared/corpus/no-such-corpus") {
				t.Errorf("message %q should name the folder", msg)
			}
		})
	}
}
