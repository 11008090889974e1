package wire

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateCopy = flag.Bool("update-wire", false, "rewrite this package from supplychain/wire")

// definition is where the one definition lives, from this package's folder.
const definition = "../../supplychain/wire"

// generatedHeader opens every copied file, as Go's convention for generated code asks.
const generatedHeader = "// Code generated from supplychain/wire by `go test ./internal/wire -update-wire`. DO NOT EDIT.\n\n"

// TestCopyIsCurrent holds this package to an exact copy of supplychain/wire: each of its
// non-test files, with the generated header, and no other. A change there fails here
// until the copy is made again.
func TestCopyIsCurrent(t *testing.T) {
	want, err := copyOf(definition)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatalf("no Go files in %s", definition)
	}
	stale, err := staleFiles(want, ".")
	if err != nil {
		t.Fatal(err)
	}
	if !*updateCopy {
		for _, name := range stale {
			t.Errorf("%s is not supplychain/wire's copy: run go test ./internal/wire -update-wire", name)
		}
		return
	}
	for _, name := range stale {
		content, ok := want[name]
		if !ok {
			err = os.Remove(name)
		} else {
			err = os.WriteFile(name, content, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestStaleFiles: the check names a changed, a missing and an extra file, and nothing
// when the copy is exact.
func TestStaleFiles(t *testing.T) {
	want := map[string][]byte{"a.go": []byte("package wire\n"), "b.go": []byte("package wire\n\nconst B = 1\n")}
	tests := []struct {
		name  string
		files map[string]string
		stale []string
	}{
		{name: "exact", files: map[string]string{"a.go": "package wire\n", "b.go": "package wire\n\nconst B = 1\n", "x_test.go": "package wire\n"}},
		{name: "changed", files: map[string]string{"a.go": "package wire\n", "b.go": "package wire\n\nconst B = 2\n"}, stale: []string{"b.go"}},
		{name: "missing", files: map[string]string{"a.go": "package wire\n"}, stale: []string{"b.go"}},
		{name: "extra", files: map[string]string{"a.go": "package wire\n", "b.go": "package wire\n\nconst B = 1\n", "c.go": "package wire\n"}, stale: []string{"c.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := staleFiles(want, dir)
			if err != nil || !slices.Equal(got, tt.stale) {
				t.Fatalf("staleFiles = %q, %v; want %q", got, err, tt.stale)
			}
		})
	}
}

// copyOf is what the copy of the package in dir must hold: each non-test file, by name,
// with the generated header.
func copyOf(dir string) (map[string][]byte, error) {
	sources, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	want := map[string][]byte{}
	for _, src := range sources {
		if strings.HasSuffix(src, "_test.go") {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return nil, err
		}
		want[filepath.Base(src)] = append([]byte(generatedHeader), b...)
	}
	return want, nil
}

// staleFiles names, sorted, the non-test files of dir that differ from want, are missing
// from it, or are not in want.
func staleFiles(want map[string][]byte, dir string) ([]string, error) {
	present, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, path := range present {
		name := filepath.Base(path)
		if _, ok := want[name]; !ok && !strings.HasSuffix(name, "_test.go") {
			stale = append(stale, name)
		}
	}
	for name, content := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		if !bytes.Equal(got, content) {
			stale = append(stale, name)
		}
	}
	slices.Sort(stale)
	return stale, nil
}
