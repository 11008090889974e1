package upstreams

import "testing"

// Every validation error names the file and the field, in order of finding.
func TestProblemsNameFileAndField(t *testing.T) {
	var errs problems
	fail := errs.add
	fail("integrations.keda.versions[1]", "%s comes after %s: keep the matrix in ascending order", "2.15.0", "2.16.0")
	fail("cloudcoil.minor", "%v", "missing")
	want := []string{
		"models/upstreams.json: integrations.keda.versions[1]: 2.15.0 comes after 2.16.0: keep the matrix in ascending order",
		"models/upstreams.json: cloudcoil.minor: missing",
	}
	if len(errs) != len(want) {
		t.Fatalf("%d problems, want %d: %v", len(errs), len(want), errs)
	}
	for i, err := range errs {
		if err.Error() != want[i] {
			t.Errorf("problem %d = %q, want %q", i, err, want[i])
		}
	}
}
