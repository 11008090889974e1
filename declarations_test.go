package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"dagger/shipyard/internal/functions"
)

// A function's name is written once, by its method: its declaration is generated from its
// doc pragmas, calling finds it from the method, and the root's errors name it through
// m.fn. A string in the root package, or in internal/functions' hand-written code, that is
// a function's name, or an error that starts with one, is a second place to keep in step.
func TestFunctionNamesAreWrittenOnce(t *testing.T) {
	names := map[string]bool{}
	for _, n := range functions.Names() {
		names[n] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("internal", "functions", "functions.go"))
	checked := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, name := range namesWritten(f, names) {
			t.Errorf("%s: the function name %q is written by hand: use m.fn (the declaration's Name) or the declaration", fset.Position(name.Pos()), name.Value)
		}
	}
	if checked < 10 {
		t.Errorf("checked %d files; the root package has more", checked)
	}
}

// namesWritten are the string literals of f, outside its imports, that are a function's
// name or start with one as an error's prefix does ("lint: …").
func namesWritten(f *ast.File, names map[string]bool) []*ast.BasicLit {
	var out []*ast.BasicLit
	ast.Inspect(f, func(n ast.Node) bool {
		if _, ok := n.(*ast.ImportSpec); ok {
			return false
		}
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		prefix, _, _ := strings.Cut(s, ": ")
		if names[s] || names[prefix] {
			out = append(out, lit)
		}
		return true
	})
	return out
}

// The reader finds what it looks for: a name, and an error's prefix; not a mention.
func TestNamesWritten(t *testing.T) {
	src := `package p
import "lint"
var a = "lint"
var b = fmt.Errorf("release-plan: %w", err)
var c = "run lint first"
var d = "--registry-password: bad"
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := namesWritten(f, map[string]bool{"lint": true, "release-plan": true})
	var values []string
	for _, lit := range got {
		values = append(values, lit.Value)
	}
	if want := `"lint" "release-plan: %w"`; strings.Join(values, " ") != want {
		t.Errorf("found %s, want %s", strings.Join(values, " "), want)
	}
}
