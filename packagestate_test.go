package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNoExportedPackageState: no package (the supplychain module and the suite's Trivy
// database included) exports a package-level variable other than an error or a compiled
// regexp, as sigstore-go's pkg/verify does: what a package offers is a constant, a
// function or a field, so no test can change another's world by assigning to it.
func TestNoExportedPackageState(t *testing.T) {
	var found []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// internal/dagger is written by the engine's codegen, not by us.
			if path != "." && (path == filepath.Join("internal", "dagger") || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		found = append(found, exportedState(fset, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		return
	}
	t.Errorf("exported package-level variables (make each a constant, a function returning a fresh value, or unexported):\n  %s", strings.Join(found, "\n  "))
}

// exportedState lists, as file:line name, the exported package-level variables of f that
// are not an error (typed error, or made by errors.New or fmt.Errorf) or a compiled regexp
// (typed *regexp.Regexp, or made by regexp.MustCompile or regexp.MustCompilePOSIX).
func exportedState(fset *token.FileSet, f *ast.File) []string {
	var out []string
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !name.IsExported() {
					continue
				}
				var value ast.Expr
				if len(vs.Values) == len(vs.Names) {
					value = vs.Values[i]
				}
				if allowedType(vs.Type) || (vs.Type == nil && allowedValue(value)) {
					continue
				}
				out = append(out, fset.Position(name.Pos()).String()+" "+name.Name)
			}
		}
	}
	return out
}

func allowedType(typ ast.Expr) bool {
	switch typ := typ.(type) {
	case *ast.Ident:
		return typ.Name == "error"
	case *ast.StarExpr:
		return isSelector(typ.X, "regexp", "Regexp")
	}
	return false
}

func allowedValue(value ast.Expr) bool {
	call, ok := value.(*ast.CallExpr)
	if !ok {
		return false
	}
	return isSelector(call.Fun, "errors", "New") || isSelector(call.Fun, "fmt", "Errorf") ||
		isSelector(call.Fun, "regexp", "MustCompile") || isSelector(call.Fun, "regexp", "MustCompilePOSIX")
}

func isSelector(e ast.Expr, pkg string, names ...string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == pkg && slices.Contains(names, sel.Sel.Name)
}

// TestExportedState holds the rule of TestNoExportedPackageState to its cases.
func TestExportedState(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"an error sentinel", `var ErrGone = errors.New("gone")`, nil},
		{"a wrapped sentinel", `var ErrLate = fmt.Errorf("late: %w", ErrGone)`, nil},
		{"a typed error", `var ErrSet error = build()`, nil},
		{"a compiled regexp", `var Tag = regexp.MustCompile("^v[0-9]+$")`, nil},
		{"a typed regexp", `var Tag *regexp.Regexp`, nil},
		{"unexported state", `var cache = map[string]int{}`, nil},
		{"a constant", `const Limit = 3`, nil},
		{"a slice", `var Sources = []string{"go.mod"}`, []string{"Sources"}},
		{"a map", `var Sets = map[string]int{}`, []string{"Sets"}},
		{"a function value", `var Now = time.Now`, []string{"Now"}},
		{"a typed value", `var Client http.Client`, []string{"Client"}},
		{"another package's regexp type", `var Tag *other.Regexp`, []string{"Tag"}},
		{"another call", `var Publish = append([]string{"x"}, Scan...)`, []string{"Publish"}},
		{"one of a group", "var (\n\tErrA = errors.New(\"a\")\n\tLog = os.Stderr\n)", []string{"Log"}},
		{"names given together", `var A, b, C = errors.New("a"), 1, 2`, []string{"C"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "p.go", "package p\n"+tc.src+"\n", 0)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range exportedState(fset, f) {
				got = append(got, s[strings.LastIndex(s, " ")+1:])
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
