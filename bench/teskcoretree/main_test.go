package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/testkit/teskreal"
)

// The folder the command writes holds the suite's fixture, file for file.
func TestRunWritesTheSuitesProject(t *testing.T) {
	tree := filepath.Join(corpus.Dir(t, "tesk-core"), "tree")
	out := t.TempDir()
	if err := run([]string{tree, out}); err != nil {
		t.Fatal(err)
	}
	want := teskreal.Files(t)
	for _, p := range slices.Sorted(maps.Keys(want)) {
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p)))
		if err != nil || string(b) != want[p] {
			t.Fatalf("%s: %v, or not the fixture's content", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "pyproject.toml")); err != nil {
		t.Fatalf("no pyproject.toml: %v", err)
	}
}

func TestRunRefusesBadArguments(t *testing.T) {
	for _, args := range [][]string{nil, {"one"}, {"a", "b", "c"}} {
		if err := run(args); err == nil || !strings.Contains(err.Error(), "two arguments") {
			t.Errorf("run(%q) = %v, want the two arguments named", args, err)
		}
	}
	if err := run([]string{filepath.Join(t.TempDir(), "absent"), t.TempDir()}); err == nil {
		t.Error("a missing corpus tree was accepted")
	}
}
