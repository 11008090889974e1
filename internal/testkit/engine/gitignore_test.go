package engine

import (
	"context"
	"testing"

	"dagger.io/dagger"
)

// Directory.filter(gitignore: true) leaves out what the tree's .gitignore files ignore, as
// the engine's copier does: root patterns anywhere below, a nested file's patterns only in
// its folder, folder-only patterns, negation, and everything inside an ignored folder; both
// for files the graph wrote and for an exec's output known only through rules.
func TestFilterGitignore(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	c := e.Client(ctx)
	written := c.Directory().
		WithNewFile(".gitignore", "# caches\n.*cache\n__pycache__/\nbuild/\n*.log\n!keep.log\n").
		WithNewFile("pkg/.gitignore", "local.txt\n").
		WithNewFile("pkg/a.py", "").
		WithNewFile("pkg/local.txt", "").
		WithNewFile("local.txt", "").
		WithNewFile("pkg/__pycache__/a.pyc", "").
		WithNewFile(".ruff_cache/0.8.4/x", "").
		WithNewFile("build", "a file, not a folder").
		WithNewFile("out/build/lib.so", "").
		WithNewFile("debug.log", "").
		WithNewFile("keep.log", "")

	e.OnExec(ExecRule{ArgsContain: "generate"})
	e.OnFile(FileRule{Path: "/repo/.gitignore", ChainContains: "generate", Contents: ".venv\n.*cache\n"})
	e.OnEntries(DirRule{Path: "/repo", ChainContains: "generate", Entries: []string{".gitignore", ".venv/", ".ruff_cache/", "cloudcoil/", "pyproject.toml"}})
	e.OnEntries(DirRule{Path: "/repo/cloudcoil", ChainContains: "generate", Entries: []string{".mypy_cache/", "models/"}})
	generated := c.Container().From("python:3.13").WithExec([]string{"generate"}).Directory("/repo")

	runQueryCases(t, []queryCase{
		{"written tree", func() (any, error) {
			return written.Filter(dagger.DirectoryFilterOpts{Gitignore: true}).Glob(ctx, "**")
		}, []string{".gitignore", "build", "keep.log", "local.txt", "out/", "pkg/", "pkg/.gitignore", "pkg/a.py"}},
		{"without gitignore nothing is left out", func() (any, error) {
			got, err := written.Filter(dagger.DirectoryFilterOpts{Exclude: []string{"nothing"}}).Glob(ctx, "**/*.log")
			return len(got), err
		}, 2},
		{"exec output, root", func() (any, error) {
			return generated.Filter(dagger.DirectoryFilterOpts{Gitignore: true}).Entries(ctx)
		}, []string{".gitignore", "cloudcoil/", "pyproject.toml"}},
		{"exec output, below", func() (any, error) {
			return generated.Filter(dagger.DirectoryFilterOpts{Gitignore: true}).Entries(ctx, dagger.DirectoryEntriesOpts{Path: "cloudcoil"})
		}, []string{"models/"}},
		{"exec output, an ignored folder no longer exists", func() (any, error) {
			return generated.Filter(dagger.DirectoryFilterOpts{Gitignore: true}).Exists(ctx, ".venv")
		}, false},
	})
}
