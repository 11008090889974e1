package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// nameSuffixes are the words docs/architecture.md's table of names gives one meaning each.
var nameSuffixes = []string{"Config", "Options", "Plan", "State", "Facts", "Target"}

// TestNamesTable holds the code to the table of names in docs/architecture.md: every
// exported type whose name ends in one of its words (Config, Options, Plan, State, Facts,
// Target) is in the table, and every type the table lists exists, so a new name for a
// concept that has one fails here until the table (and the reviewer) accept it.
func TestNamesTable(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "\n## Names\n")
	if !ok {
		t.Fatal("docs/architecture.md has no \"## Names\" section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z]+\\.[A-Z][A-Za-z]*)`").FindAllStringSubmatch(table, -1) {
		listed[m[1]] = true
	}
	found := exportedTypesEndingIn(t, ".", nameSuffixes)
	for _, name := range found {
		if !listed[name] {
			t.Errorf("%s is not in docs/architecture.md's table of names: use the table's name for its concept, or add it there", name)
		}
	}
	for name := range listed {
		if hasSuffix(name, nameSuffixes) && !slices.Contains(found, name) {
			t.Errorf("docs/architecture.md's table of names lists %s, which the code does not declare", name)
		}
	}
}

func hasSuffix(name string, suffixes []string) bool {
	return slices.ContainsFunc(suffixes, func(s string) bool { return strings.HasSuffix(name, s) })
}

// exportedTypesEndingIn lists package.Type for every exported type of the module's
// non-test sources (supplychain/ is a module of its own) whose name ends in a suffix.
func exportedTypesEndingIn(t *testing.T, root string, suffixes []string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch {
			case path == "supplychain", path == filepath.Join("internal", "dagger"), d.Name() == "testdata", strings.HasPrefix(d.Name(), "."):
				if path != "." {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, spec := range g.Specs {
				name := spec.(*ast.TypeSpec).Name.Name
				if ast.IsExported(name) && hasSuffix(name, suffixes) {
					out = append(out, f.Name.Name+"."+name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
