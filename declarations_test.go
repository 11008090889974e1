package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
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

// No package writes a function's name into its errors, or into a flow's name, either: the
// root names the function of every call (Shipyard.naming) and gives it to the flows it
// runs, the job table names a job, a flow's runner a step. Nor does one declare a
// function's name as a constant of its own: a step that is a function's body (publish's
// sign, the release's release-plan) takes internal/functions' generated constant.
func TestNoPackageWritesAFunctionIntoItsErrors(t *testing.T) {
	names := map[string]bool{}
	for _, n := range functions.Names() {
		names[n] = true
	}
	checked := 0
	coincidences := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch {
			case path == ".":
				return nil
			case path == "supplychain", path == filepath.Join("internal", "dagger"), d.Name() == "testdata", strings.HasPrefix(d.Name(), "."):
				return filepath.SkipDir // another module; generated; data
			}
			return nil
		}
		if filepath.Dir(path) == "." || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		for _, lit := range errorsNamingAFunction(f, names) {
			t.Errorf("%s: the error %s names a function: return it unnamed, and the function's call names it", fset.Position(lit.Pos()), lit.Value)
		}
		for _, lit := range flowsNamingAFunction(f, names) {
			t.Errorf("%s: the flow's name %s is a function's: take it from the caller (the module gives m.fn)", fset.Position(lit.Pos()), lit.Value)
		}
		for _, lit := range constantsNamingAFunction(f, names) {
			if path == filepath.Join("internal", "functions", "declarations.go") {
				break // the one place, generated from the methods
			}
			if key := filepath.ToSlash(path) + " " + lit.Value; sameWordElsewhere[key] != "" {
				coincidences[key] = true
				continue
			}
			t.Errorf("%s: the constant %s is a function's name: use internal/functions' constant (a step that is the function's body, as publish.StepSign = functions.Sign)", fset.Position(lit.Pos()), lit.Value)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Errorf("checked %d files; the module has more", checked)
	}
	for key := range sameWordElsewhere {
		if !coincidences[key] {
			t.Errorf("sameWordElsewhere lists %s, which no constant is any more: remove it", key)
		}
	}
}

// sameWordElsewhere are the constants whose value is a function's name by coincidence: the
// same word names something else, which keeps its name if the function is renamed.
var sameWordElsewhere = map[string]string{
	`models/modelenv/generate.go "lint"`:            "a target of a model repository's Makefile",
	`models/modelenv/generate.go "test"`:            "a target of a model repository's Makefile",
	`models/modelenv/generate.go "check-artifacts"`: "a target of a model repository's Makefile (the function is named after it)",
	`internal/doctor/tesk.go "release"`:             "tesk-core's GitHub environment of its release jobs",
}

// constantsNamingAFunction are the string constants of f whose value is a function's name,
// as publish's StepSign = "sign" was.
func constantsNamingAFunction(f *ast.File, names map[string]bool) []*ast.BasicLit {
	var out []*ast.BasicLit
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			for _, v := range spec.(*ast.ValueSpec).Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				if s, err := strconv.Unquote(lit.Value); err == nil && names[s] {
					out = append(out, lit)
				}
			}
		}
	}
	return out
}

// errorsNamingAFunction are the messages of fmt.Errorf and errors.New calls in f that
// start with a function's name, as "model-ci: …" did.
func errorsNamingAFunction(f *ast.File, names map[string]bool) []*ast.BasicLit {
	var out []*ast.BasicLit
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !(isIdent(sel.X, "fmt") && sel.Sel.Name == "Errorf" || isIdent(sel.X, "errors") && sel.Sel.Name == "New") {
			return true
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		if s, err := strconv.Unquote(lit.Value); err == nil {
			if prefix, _, ok := strings.Cut(s, ": "); ok && names[prefix] {
				out = append(out, lit)
			}
		}
		return true
	})
	return out
}

// flowsNamingAFunction are the string literals in f that make a flow's name (a Flow field,
// "update-repos " + name) starting with a function's name: the caller gives that name.
func flowsNamingAFunction(f *ast.File, names map[string]bool) []*ast.BasicLit {
	var out []*ast.BasicLit
	ast.Inspect(f, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok || !isIdent(kv.Key, "Flow") {
			return true
		}
		ast.Inspect(kv.Value, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if first, _, _ := strings.Cut(s, " "); err == nil && names[first] {
				out = append(out, lit)
			}
			return true
		})
		return true
	})
	return out
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
var e = fmt.Errorf("lint: %w", err)
var n = errors.New("lint: failed")
var o = fmt.Sprintf("lint: %d", 1)
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
	if want := `"lint: %w" "lint: failed" "lint: %d" "lint" "release-plan: %w"`; strings.Join(values, " ") != want {
		t.Errorf("found %s, want %s", strings.Join(values, " "), want)
	}
	var errs []string
	for _, lit := range errorsNamingAFunction(f, map[string]bool{"lint": true, "release-plan": true}) {
		errs = append(errs, lit.Value)
	}
	if want := `"lint: %w" "lint: failed" "release-plan: %w"`; strings.Join(errs, " ") != want {
		t.Errorf("errors naming a function: %s, want %s", strings.Join(errs, " "), want)
	}

	flows, err := parser.ParseFile(token.NewFileSet(), "f.go", `package p
var a = flow.Runner{Flow: "update-repos " + name}
var b = flow.Runner{Flow: "lint"}
var c = flow.Runner{Flow: o.Flow + " " + name, Log: "lint"}
var d = Options{Flow: "a flow of its own"}
`, 0)
	if err != nil {
		t.Fatal(err)
	}
	var named []string
	for _, lit := range flowsNamingAFunction(flows, map[string]bool{"lint": true, "update-repos": true}) {
		named = append(named, lit.Value)
	}
	if want := `"update-repos " "lint"`; strings.Join(named, " ") != want {
		t.Errorf("flows naming a function: %s, want %s", strings.Join(named, " "), want)
	}
}
