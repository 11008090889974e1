package upstreams

import (
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

// A file that skipped Validate with a matrix line outside the maintained minors gets no
// patch for it: under PolicyMaintainedMinors only the maintained lines take updates.
func TestMaintainedMinorsOnly(t *testing.T) {
	v := "v"
	in := &Integration{Repository: "kubernetes/kubernetes", TagPrefix: &v,
		Versions: []string{"1.30.1", "1.31.1"}, Policy: PolicyMaintainedMinors, MaintainedMinors: []string{"1.31"},
		SchemaURLs: []SchemaURL{{URL: "https://example.com/v{version}/crds.yaml"}}}
	var found []Version
	for _, s := range []string{"1.30.9", "1.31.4", "1.33.0"} {
		x, _ := ParseVersion(s)
		found = append(found, x)
	}
	changes := planIntegration("kubernetes", in, found)
	var got []string
	for _, c := range changes {
		got = append(got, string(c.Kind)+" "+c.From+"→"+c.To)
	}
	want := []string{"patch 1.31.1→1.31.4", "reported 1.31.1→1.33.0"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("changes = %q, want %q", got, want)
	}
}
