package engine

import (
	"reflect"
	"testing"
)

func TestMatchPattern(t *testing.T) {
	cases := []struct {
		pattern, path string
		want          bool
	}{
		{"*.go", "main.go", true},
		{"*.go", "pkg/main.go", false},
		{"**/*.go", "main.go", true},
		{"**/*.go", "pkg/a/main.go", true},
		{"docs/**", "docs/a/b.md", true},
		{"docs/**", "docs", false},
		{"src/**/*_test.py", "src/a/b_test.py", true},
		{"src/**/*_test.py", "src/b_test.py", true},
		{"/node_modules", "node_modules", true},
		{"a?c", "abc", true},
	}
	for _, tc := range cases {
		if got := matchPattern(tc.pattern, tc.path); got != tc.want {
			t.Errorf("matchPattern(%q, %q) = %v, want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}

func TestSelected(t *testing.T) {
	cases := []struct {
		name             string
		path             string
		isDir            bool
		include, exclude []string
		want             bool
	}{
		{"no filters", "a/b", false, nil, nil, true},
		{"excluded folder excludes its files", "node_modules/x/y.js", false, nil, []string{"node_modules"}, false},
		{"negation re-adds", "docs/keep.md", false, nil, []string{"docs", "!docs/keep.md"}, true},
		{"last match wins", "docs/keep.md", false, nil, []string{"!docs/keep.md", "docs"}, false},
		{"include by glob", "src/a.py", false, []string{"**/*.py"}, nil, true},
		{"not included", "README.md", false, []string{"**/*.py"}, nil, false},
		{"folder on the way to an include", "src", true, []string{"src/pkg/*.py"}, nil, true},
		{"file is not a way to an include", "src/other.txt", false, []string{"src/**/*.py"}, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := selected(tc.path, tc.isDir, tc.include, tc.exclude); got != tc.want {
				t.Errorf("selected = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestVFSOperations(t *testing.T) {
	data := func(s string) vfile { return vfile{data: &s} }
	base := emptyFS(true).withFile("a/x.txt", data("x")).withFile("a/b/y.txt", data("y")).withDir("empty")
	cases := []struct {
		name string
		fs   *vfs
		dir  string
		want []string
	}{
		{"root", base, "", []string{"a/", "empty/"}},
		{"nested", base, "a", []string{"b/", "x.txt"}},
		{"sub", base.sub("a"), "", []string{"b/", "x.txt"}},
		{"without", base.without("a/b"), "a", []string{"x.txt"}},
		{"merge", emptyFS(true).merge("/src", base, nil, []string{"empty"}), "src", []string{"a/"}},
		{"filter", base.filter([]string{"**/y.txt"}, nil), "a", []string{"b/"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.fs.entries(tc.dir)
			if !ok || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("entries(%q) = %v, %v; want %v", tc.dir, got, ok, tc.want)
			}
		})
	}
	if _, ok := base.entries("missing"); ok {
		t.Errorf("entries of a missing folder must report it")
	}
	if _, ok := base.lookup("a/x.txt"); !ok {
		t.Errorf("the original tree must not change")
	}
}

func TestOriginsFollowMountedFolders(t *testing.T) {
	produced := emptyFS(false).withOrigin("/out", "container.from(address:\"python\").withExec(args:[\"build\"])")
	consumer := emptyFS(false).merge("/dist", produced, nil, nil)
	p, c, ok := consumer.originOf("/dist/pkg/app.whl")
	if !ok || p != "/out/pkg/app.whl" || c == "" {
		t.Errorf("originOf = %q, %q, %v", p, c, ok)
	}
	sub := consumer.sub("/dist/pkg")
	if p, _, _ := sub.originOf("app.whl"); p != "/out/pkg/app.whl" {
		t.Errorf("origin through sub = %q", p)
	}
	if _, _, ok := consumer.without("/dist").originOf("/dist/app.whl"); ok {
		t.Errorf("a removed folder keeps no origin")
	}
}
