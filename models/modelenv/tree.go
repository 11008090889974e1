package modelenv

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing/fstest"
	"unicode/utf8"

	"dagger.io/dagger"

	"dagger/shipyard/internal/fanout"
	pytoml "dagger/shipyard/internal/pyproject"
	"dagger/shipyard/models"
)

// Tree is a repository's files in memory, by slash-separated path.
type Tree map[string][]byte

// FS serves the tree as a read-only file system for the rules of package models.
func (t Tree) FS() fs.FS {
	m := make(fstest.MapFS, len(t))
	for p, data := range t {
		m[p] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return m
}

// Paths lists the tree's paths, sorted.
func (t Tree) Paths() []string {
	out := make([]string, 0, len(t))
	for p := range t {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Shipped is the part of the tree the wheel and sdist are made of: the project metadata
// (pyproject.toml, and README and LICENSE files at the root, which become the metadata's
// description and license) and the package directory. It is what Fingerprint covers, so a
// change to tests, CI files or the lockfile alone is not a reason to release.
func (t Tree) Shipped(pkgDir string) Tree {
	out := Tree{}
	for p, data := range t {
		root := !strings.Contains(p, "/")
		upper := strings.ToUpper(p)
		switch {
		case p == PyprojectPath,
			root && (strings.HasPrefix(upper, "README") || strings.HasPrefix(upper, "LICENSE") || strings.HasPrefix(upper, "LICENCE")),
			strings.HasPrefix(p, pkgDir+"/"):
			out[p] = data
		}
	}
	return out
}

// Digests are the two fingerprints of a generated repository.
type Digests struct {
	// Fingerprint covers what ships (Shipped).
	Fingerprint string
	// Tree covers every file but the release record.
	Tree string
}

// Fingerprints computes both digests with models.Fingerprint.
func (t Tree) Fingerprints(pkgDir string) (Digests, error) {
	shipped, err := models.Fingerprint(t.Shipped(pkgDir).FS())
	if err != nil {
		return Digests{}, err
	}
	all, err := models.Fingerprint(t.FS())
	if err != nil {
		return Digests{}, err
	}
	return Digests{Fingerprint: shipped, Tree: all}, nil
}

// FindPackageDir finds the generated package from the generator's own settings: the
// namespace of pyproject.toml's [[tool.cloudcoil.codegen.models]] (e.g.
// "cloudcoil.models.cert_manager") is the package's import path, which the Cloudcoil
// template keeps at the repository root (cloudcoil/models/cert_manager/). A repository
// that really uses a src layout holds it under src/ instead; whichever holds files is the
// package. No manifest is needed: the generator writes none of its own.
func FindPackageDir(t Tree) (string, error) {
	data, ok := t[PyprojectPath]
	if !ok {
		return "", fmt.Errorf("no %s at the repository root: is this a generated model repository?", PyprojectPath)
	}
	doc, err := pytoml.Parse(PyprojectPath, data)
	if err != nil {
		return "", err
	}
	var namespaces []pytoml.StringValue
	for _, v := range doc.StringValues(CodegenNamespaceKey) {
		if !slices.ContainsFunc(namespaces, func(o pytoml.StringValue) bool { return o.Text == v.Text }) {
			namespaces = append(namespaces, v)
		}
	}
	switch len(namespaces) {
	case 0:
		return "", fmt.Errorf("%s: no [[tool.cloudcoil.codegen.models]] namespace = \"cloudcoil.models.<module>\"; the model template writes it, and it names the generated package", PyprojectPath)
	case 1:
	default:
		names := make([]string, len(namespaces))
		for i, n := range namespaces {
			names[i] = n.Text
		}
		return "", fmt.Errorf("%s: several generator namespaces (%s); a model repository holds one package", PyprojectPath, strings.Join(names, ", "))
	}
	ns := namespaces[0]
	dir := strings.ReplaceAll(ns.Text, ".", "/")
	if ns.Text == "" || !fs.ValidPath(dir) || strings.Contains(ns.Text, "/") {
		return "", fmt.Errorf("%s:%d: namespace %q is not a dotted Python package name", PyprojectPath, ns.Line, ns.Text)
	}
	var found []string
	for _, candidate := range []string{dir, "src/" + dir} {
		if t.hasFilesUnder(candidate) {
			found = append(found, candidate)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("%s:%d: namespace %q: no package at %s/ (nor src/%s/); run the generation (make gen-models) first", PyprojectPath, ns.Line, ns.Text, dir, dir)
	}
	return "", fmt.Errorf("%s:%d: namespace %q: both %s/ and src/%s/ hold files; keep the package in one place (the template uses %s/)", PyprojectPath, ns.Line, ns.Text, dir, dir, dir)
}

// hasFilesUnder says whether any file lies under dir.
func (t Tree) hasFilesUnder(dir string) bool {
	for p := range t {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// TreeLimits bound what ReadTree reads into memory.
type TreeLimits struct {
	MaxFiles   int
	MaxBytes   int64 // all files together
	MaxPending int   // concurrent reads
}

// DefaultTreeLimits fit the largest generated repository (Kubernetes: a few hundred
// modules of up to a few MiB) with a wide margin.
func DefaultTreeLimits() TreeLimits {
	return TreeLimits{MaxFiles: 20_000, MaxBytes: 512 << 20, MaxPending: 16}
}

// NotRepository are left out when reading a generated repository: history, environments,
// caches and build output, none of which is generated content or may be committed.
func NotRepository() []string {
	return []string{
		".git", ".venv", "dist", "build", "**/*.egg-info",
		"**/__pycache__", "**/.mypy_cache", "**/.ruff_cache", "**/.pytest_cache",
	}
}

// ReadTree reads a directory's files into memory through the Dagger API (Entries, then
// each file's Contents, concurrently), without the paths of NotRepository.
//
// The API returns contents as text, so a file that is not UTF-8 arrives altered (invalid
// bytes become U+FFFD); such a file is an error rather than silently different bytes.
// Generated model repositories hold text only; artifacts, which are binary, are read by
// readArtifact instead.
func ReadTree(ctx context.Context, dir *dagger.Directory, lim TreeLimits) (Tree, error) {
	dir = dir.Filter(dagger.DirectoryFilterOpts{Exclude: NotRepository()})
	var files []string
	queue := []string{""}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		var entries []string
		var err error
		if d == "" {
			entries, err = dir.Entries(ctx)
		} else {
			entries, err = dir.Entries(ctx, dagger.DirectoryEntriesOpts{Path: d})
		}
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", orRoot(d), err)
		}
		for _, e := range entries {
			p := path.Join(d, strings.TrimSuffix(e, "/"))
			if strings.HasSuffix(e, "/") {
				queue = append(queue, p)
				continue
			}
			files = append(files, p)
			if len(files) > lim.MaxFiles {
				return nil, fmt.Errorf("more than %d files; is build output or an environment in the repository?", lim.MaxFiles)
			}
		}
	}

	t := Tree{}
	var (
		mu    sync.Mutex
		total int64
	)
	err := fanout.Each(ctx, max(lim.MaxPending, 1), len(files), func(ctx context.Context, i int) error {
		p := files[i]
		s, err := dir.File(p).Contents(ctx)
		switch {
		case err != nil:
			return fmt.Errorf("reading %s: %w", p, err)
		case strings.ContainsRune(s, utf8.RuneError):
			return fmt.Errorf("%s is not UTF-8 text, which the Dagger API cannot return unaltered; keep binary files out of generated repositories", p)
		}
		mu.Lock()
		defer mu.Unlock()
		total += int64(len(s))
		if total > lim.MaxBytes {
			return fmt.Errorf("files exceed %d bytes together", lim.MaxBytes)
		}
		t[p] = []byte(s)
		return nil
	})
	if err != nil {
		return nil, err // joined in the files' order, which the listing fixes
	}
	return t, nil
}

func orRoot(d string) string {
	if d == "" {
		return "the root"
	}
	return d
}
