package upstreams

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

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

// rewrite writes only what a change left valid, in the file's stable format.
func TestRewrite(t *testing.T) {
	b, err := os.ReadFile("upstreamstest/testdata/generator/" + FilePath)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	stable, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := rewrite(b, func(*File) error { return nil })
	if err != nil || !bytes.Equal(got, stable) {
		t.Errorf("an unchanged file = %q, %v; want its stable form", got, err)
	}
	refused := errors.New("refused")
	if got, err := rewrite(b, func(*File) error { return refused }); !errors.Is(err, refused) || got != nil {
		t.Errorf("a refused change = %q, %v; want nothing and its error", got, err)
	}
	if got, err := rewrite([]byte("{"), func(*File) error { t.Error("change called on a file that does not parse"); return nil }); err == nil || got != nil {
		t.Errorf("bytes that do not parse = %q, %v", got, err)
	}
}
