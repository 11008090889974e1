package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// concurrencyImports are the imports that mark a package as sharing memory between
// goroutines.
var concurrencyImports = []string{"sync", "sync/atomic", "golang.org/x/sync/errgroup", "dagger/shipyard/internal/fanout"}

// concurrentPackages lists the module's packages (by folder, relative to root; "." for the
// root) whose Go files, tests included, start a goroutine or import one of
// concurrencyImports. The separate Go modules under root (supplychain, trivydb) are left
// out: their own tests run whole with the race detector.
func concurrentPackages(root string) ([]string, error) {
	set := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != root {
				return filepath.SkipDir // another Go module
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if startsGoroutines(f) {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			set[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out, err
}

// startsGoroutines reports whether a file has a go statement or a concurrency import.
func startsGoroutines(f *ast.File) bool {
	for _, im := range f.Imports {
		if v, err := strconv.Unquote(im.Path.Value); err == nil && slices.Contains(concurrencyImports, v) {
			return true
		}
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if _, ok := n.(*ast.GoStmt); ok {
			found = true
		}
		return !found
	})
	return found
}

// readRacePackages reads .ci/race-packages: a folder a line, # comments and blank lines
// left out.
func readRacePackages(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(".ci", "race-packages"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// CI runs the race detector only where a race can be (.ci/race-packages): the list must be
// exactly the packages that start goroutines or share memory between them, so that a
// package gaining a goroutine cannot leave the race detector's sight, and none is listed
// for nothing.
func TestRacePackagesAreTheConcurrentOnes(t *testing.T) {
	want, err := concurrentPackages(".")
	if err != nil {
		t.Fatal(err)
	}
	got := readRacePackages(t)
	if !slices.Equal(got, want) {
		for _, p := range want {
			if !slices.Contains(got, p) {
				t.Errorf(".ci/race-packages lacks %s, which starts goroutines or shares memory between them: add it", p)
			}
		}
		for _, p := range got {
			if !slices.Contains(want, p) {
				t.Errorf(".ci/race-packages lists %s, which has no concurrency (no go statement, no import of %s): remove it", p, strings.Join(concurrencyImports, ", "))
			}
		}
		if !t.Failed() {
			t.Errorf(".ci/race-packages is not sorted: want\n%s", strings.Join(want, "\n"))
		}
	}
}

// The rule itself, on small files: what marks a package as concurrent, and what does not.
func TestStartsGoroutines(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      bool
	}{
		{"go statement", "package p\nfunc f() { go func() {}() }", true},
		{"go statement of a named function", "package p\nfunc g() {}\nfunc f() { go g() }", true},
		{"sync", "package p\nimport \"sync\"\nvar mu sync.Mutex", true},
		{"sync/atomic", "package p\nimport \"sync/atomic\"\nvar n atomic.Int64", true},
		{"the fan-out", "package p\nimport \"dagger/shipyard/internal/fanout\"\nvar _ = fanout.Each", true},
		{"errgroup", "package p\nimport \"golang.org/x/sync/errgroup\"\nvar _ errgroup.Group", true},
		{"none", "package p\nimport \"strings\"\nfunc f() string { return strings.TrimSpace(\" go \") }", false},
		{"a word go in a comment or string", "package p\n// go func() {}\nvar s = \"go f()\"", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := parser.ParseFile(token.NewFileSet(), "p.go", c.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := startsGoroutines(f); got != c.want {
				t.Errorf("startsGoroutines = %v, want %v", got, c.want)
			}
		})
	}
}
