package upstreams

import (
	"fmt"
	"strings"
	"testing"

	goversion "github.com/hashicorp/go-version"
)

// The policies' ranges as go-version constraints: which releases each admits.
func TestPolicyRanges(t *testing.T) {
	v := func(s string) Version {
		t.Helper()
		out, err := ParseVersion(s)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	line := func(s string) Line {
		t.Helper()
		l, err := ParseLine(s)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	tests := []struct {
		name   string
		rng    goversion.Constraints
		admits map[string]bool
	}{
		{"patches from 1.31.5", patchesFrom(v("1.31.5")), map[string]bool{
			"1.31.4": false, "1.31.5": true, "1.31.6": true, "1.31.10": true, "1.32.0": false, "2.31.5": false, "1.3.100": false}},
		{"releases of 0.5", releasesOf(line("0.5")), map[string]bool{
			"0.4.9": false, "0.5.0": true, "0.5.3": true, "0.5.99": true, "0.6.0": false, "1.5.0": false}},
		{"beyond 0.5", beyond(line("0.5")), map[string]bool{
			"0.5.99": false, "0.6.0": true, "0.10.0": true, "1.0.0": true, "0.4.0": false}},
		{"beyond 1.9 includes 1.10", beyond(line("1.9")), map[string]bool{
			"1.9.7": false, "1.10.0": true, "1.100.0": true}},
	}
	for _, tt := range tests {
		for s, want := range tt.admits {
			if got := tt.rng.Check(v(s).semver()); got != want {
				t.Errorf("%s (%s) admits %s = %v, want %v", tt.name, tt.rng, s, got, want)
			}
		}
	}
	if admitsNothing.Check(v("0.0.0").semver()) {
		t.Error("admitsNothing admits 0.0.0")
	}
	if got := mustConstraint("~> -1.0.0"); got.Check(v("0.0.0").semver()) {
		t.Error("an unparsable range admits releases")
	}
}

func TestNewestIn(t *testing.T) {
	var vs []Version
	for _, s := range []string{"1.31.2", "1.31.10", "1.31.9", "1.32.1", "1.30.7"} {
		v, _ := ParseVersion(s)
		vs = append(vs, v)
	}
	from, _ := ParseVersion("1.31.2")
	if got, ok := newestIn(vs, patchesFrom(from)); !ok || got.String() != "1.31.10" {
		t.Errorf("newest patch = %v, %v; want 1.31.10 (numeric, not lexical)", got, ok)
	}
	if got, ok := newestIn(vs, beyond(Line{1, 32})); ok {
		t.Errorf("nothing is beyond 1.32, got %v", got)
	}
}

// The two policies differ only in what a newer minor proposes: newest-minor replaces its
// one line, maintained-lines adds one and retires the oldest past the count.
func TestPolicyProposals(t *testing.T) {
	v := "v"
	tests := []struct {
		name     string
		policy   string
		lines    int
		versions []string
		found    []string
		want     []string // kind from→to retiring
	}{
		{"newest-minor replaces its line", PolicyNewestMinor, 0, []string{"1.16.3"}, []string{"1.16.5", "1.17.0", "1.17.1"},
			[]string{"patch 1.16.3→1.16.5 []", "proposed 1.16.3→1.17.1 [1.16.3]"}},
		{"maintained-lines adds and retires the oldest", PolicyMaintainedLines, 4, []string{"1.29.13", "1.30.9", "1.31.5", "1.32.1"},
			[]string{"1.29.14", "1.32.3", "1.33.0"},
			[]string{"patch 1.29.13→1.29.14 []", "patch 1.32.1→1.32.3 []", "proposed 1.32.1→1.33.0 [1.29.13]"}},
		{"maintained-lines below its count only adds", PolicyMaintainedLines, 4, []string{"1.31.5", "1.32.1"}, []string{"1.33.2"},
			[]string{"proposed 1.32.1→1.33.2 []"}},
		{"nothing newer", PolicyNewestMinor, 0, []string{"2.5.1"}, []string{"2.4.0", "2.5.1"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &Integration{Name: "x", Repository: "o/x", TagPrefix: &v, Versions: tt.versions, Policy: tt.policy, MaintainedLines: tt.lines,
				SchemaURLs: []SchemaURL{{URL: "https://example.com/v{version}/crds.yaml"}}}
			if errs := in.validate("x"); len(errs) > 0 {
				t.Fatal(errs)
			}
			var found []Version
			for _, s := range tt.found {
				x, _ := ParseVersion(s)
				found = append(found, x)
			}
			var got []string
			for _, c := range planIntegration("x", in, found) {
				got = append(got, fmt.Sprintf("%s %s→%s %v", c.Kind, c.From, c.To, c.Retires))
			}
			if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
				t.Errorf("changes = %q, want %q", got, tt.want)
			}
		})
	}
}
