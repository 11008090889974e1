package models

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"dagger/shipyard/internal/pyproject"
)

// Problem is one failed artifact check: the path it concerns (in the
// checkout or in an artifact; empty when it concerns no single file) and
// what is wrong.
type Problem struct {
	Path    string
	Message string
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// ArtifactRules configures the check-artifacts rules for a repository's
// layout. The zero value disables the lookup and manifest checks; use
// DefaultArtifactRules for Cloudcoil's generated repositories.
type ArtifactRules struct {
	// ImportRoot is the checkout directory that is the root of the import path
	// in a wheel: "" for a flat layout, "src" for a src layout.
	ImportRoot string

	// ResourceLookup is the resource registry, relative to the package
	// directory; empty disables the check. It must list at least one resource
	// kind, since a package whose lookup is empty imports fine and resolves
	// nothing. A ".json" file must hold a non-empty object or array; any other
	// file is Python and must assign ResourceTable a non-empty {…}, […] or (…)
	// literal at module level (the last assignment counts, as in Python).
	ResourceLookup string
	ResourceTable  string

	// GeneratedManifest is a JSON array of the paths, relative to the package
	// directory, that the generator wrote; empty disables the check. Each
	// listed file must exist in the checkout, which catches modules lost
	// between generation and build.
	GeneratedManifest string
}

// DefaultArtifactRules match the generated Cloudcoil model repositories: a
// flat layout, the kind lookup "_lookup.py" whose _MODELS dict maps
// (kind, apiVersion) to a model, and the ".cloudcoil-generated.json" list of
// generated files.
var DefaultArtifactRules = ArtifactRules{
	ResourceLookup:    "_lookup.py",
	ResourceTable:     "_MODELS",
	GeneratedManifest: ".cloudcoil-generated.json",
}

// CheckArtifacts applies DefaultArtifactRules.
func CheckArtifacts(checkout fs.FS, pkgDir string, wheel, sdist Artifact) []Problem {
	return DefaultArtifactRules.Check(checkout, pkgDir, wheel, sdist)
}

// Check runs the check-artifacts rules on a generated checkout (the
// repository root, with pyproject.toml) and the wheel and sdist built from it.
// pkgDir is the package directory in the checkout, e.g.
// "cloudcoil/models/kubernetes". It reports:
//
//   - a package without __init__.py or without model modules (any .py other
//     than __init__.py and the lookup), and model modules with nothing but
//     blank lines, comments and a docstring;
//   - files listed in GeneratedManifest but missing, and an empty or missing
//     ResourceLookup;
//   - wheel files under the import path of pkgDir, and sdist files under
//     "<root>/<pkgDir>", that are missing, extra, or differ in bytes from the
//     checkout (caches such as __pycache__ are not part of the checkout);
//   - artifact names and versions (metadata and root directory) that differ
//     from pyproject.toml's [project] name (compared PEP 503-normalised) and
//     version, and a missing or swapped wheel or sdist.
//
// Problems come sorted by path, then message; none means the artifacts pass.
func (r ArtifactRules) Check(checkout fs.FS, pkgDir string, wheel, sdist Artifact) []Problem {
	var ps []Problem
	add := func(p, format string, args ...any) {
		ps = append(ps, Problem{Path: p, Message: fmt.Sprintf(format, args...)})
	}
	if !fs.ValidPath(pkgDir) || pkgDir == "." {
		add(pkgDir, "package directory must be a relative slash-separated path")
		return ps
	}
	importDir := pkgDir
	if r.ImportRoot != "" {
		rel, ok := strings.CutPrefix(pkgDir, r.ImportRoot+"/")
		if !ok {
			add(pkgDir, "package directory is not under the import root %q", r.ImportRoot)
			return ps
		}
		importDir = rel
	}

	name, version, projectErr := readProject(checkout)
	if projectErr != nil {
		add("pyproject.toml", "%v", projectErr)
	}
	type built struct {
		kind, prefix string // prefix: where the package directory's files sit
		art          Artifact
	}
	var usable []built
	for _, b := range []built{
		{"wheel", importDir + "/", wheel},
		{"sdist", sdist.Root + "/" + pkgDir + "/", sdist},
	} {
		switch {
		case b.art.Files == nil || b.art.Root == "":
			add("", "%s: nothing to check (not built or not read)", b.kind)
			continue
		case b.art.Kind != b.kind:
			add(b.art.Root, "%s: got a %q artifact", b.kind, b.art.Kind)
			continue
		}
		if projectErr == nil {
			checkIdentity(add, b.kind, b.art, name, version)
		}
		usable = append(usable, b)
	}

	local, contents, err := packageFiles(checkout, pkgDir)
	if err != nil {
		add(pkgDir, "cannot read the package directory: %v", err)
		return sortProblems(ps)
	}
	r.checkModules(add, pkgDir, local, contents)
	r.checkManifest(add, checkout, pkgDir, local)
	r.checkLookup(add, pkgDir, contents)
	for _, b := range usable {
		compareFiles(add, b.kind, b.art, b.prefix, local)
	}
	return sortProblems(ps)
}

type addFunc func(path, format string, args ...any)

func sortProblems(ps []Problem) []Problem {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].Path != ps[j].Path {
			return ps[i].Path < ps[j].Path
		}
		return ps[i].Message < ps[j].Message
	})
	return ps
}

var pep503Separators = regexp.MustCompile(`[-_.]+`)

func normaliseName(s string) string {
	return strings.ToLower(pep503Separators.ReplaceAllString(s, "-"))
}

// readProject reads the literal name and version of pyproject.toml's
// [project] table. A dynamic or computed version is an error: the release
// flow sets a literal one, and anything else cannot be compared.
func readProject(checkout fs.FS) (name, version string, err error) {
	data, err := fs.ReadFile(checkout, "pyproject.toml")
	if err != nil {
		return "", "", fmt.Errorf("read project metadata: %w", err)
	}
	doc, err := pyproject.Parse("pyproject.toml", data)
	if err != nil {
		return "", "", err
	}
	if name, _, err = doc.String("project", "name"); err != nil {
		return "", "", err
	}
	if version, _, err = doc.String("project", "version"); err != nil {
		return "", "", err
	}
	if name == "" || version == "" {
		return "", "", errors.New("[project] needs literal name and version strings")
	}
	return name, version, nil
}

// rootVersion is the version part of "<name>-<version>[.dist-info]"; names in
// these directories are escaped with underscores, so the last "-" splits.
func rootVersion(root string) string {
	root = strings.TrimSuffix(root, ".dist-info")
	if i := strings.LastIndex(root, "-"); i >= 0 {
		return root[i+1:]
	}
	return ""
}

func checkIdentity(add addFunc, kind string, a Artifact, name, version string) {
	meta := a.Root + "/PKG-INFO"
	if kind == "wheel" {
		meta = a.Root + "/METADATA"
	}
	if normaliseName(a.Name) != normaliseName(name) {
		add(meta, "%s: metadata name %q is not the project %q", kind, a.Name, name)
	}
	if a.Version != version {
		add(meta, "%s: metadata version %q differs from pyproject.toml version %q", kind, a.Version, version)
	}
	if v := rootVersion(a.Root); v != version {
		add(a.Root, "%s: directory version %q differs from pyproject.toml version %q", kind, v, version)
	}
}

// packageFiles digests the checkout's files under pkgDir, keyed by path
// relative to it, skipping the same tool output as Fingerprint, and returns
// their contents for the module and lookup checks.
func packageFiles(checkout fs.FS, pkgDir string) (map[string]ArtifactFile, map[string][]byte, error) {
	files := map[string]ArtifactFile{}
	contents := map[string][]byte{}
	err := fs.WalkDir(checkout, pkgDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == pkgDir {
			if !d.IsDir() {
				return errors.New("not a directory")
			}
			return nil
		}
		if d.IsDir() {
			if ignoredDirsAnywhere[d.Name()] || strings.HasSuffix(d.Name(), ".egg-info") {
				return fs.SkipDir
			}
			return nil
		}
		if ignoredFile(p) {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: unsupported file type %s", p, d.Type())
		}
		data, err := fs.ReadFile(checkout, p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, pkgDir+"/")
		sum := sha256.Sum256(data)
		files[rel] = ArtifactFile{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))}
		contents[rel] = data
		return nil
	})
	return files, contents, err
}

func (r ArtifactRules) checkModules(add addFunc, pkgDir string, local map[string]ArtifactFile, contents map[string][]byte) {
	if _, ok := local["__init__.py"]; !ok {
		add(pkgDir+"/__init__.py", "package __init__.py is missing")
	}
	modules := 0
	for rel, data := range contents {
		if !strings.HasSuffix(rel, ".py") || path.Base(rel) == "__init__.py" || rel == r.ResourceLookup {
			continue
		}
		modules++
		if pythonIsEmpty(data) {
			add(pkgDir+"/"+rel, "model module is empty (only blank lines, comments or a docstring)")
		}
	}
	if modules == 0 {
		add(pkgDir, "no model modules")
	}
}

func (r ArtifactRules) checkManifest(add addFunc, checkout fs.FS, pkgDir string, local map[string]ArtifactFile) {
	if r.GeneratedManifest == "" {
		return
	}
	p := pkgDir + "/" + r.GeneratedManifest
	data, err := fs.ReadFile(checkout, p)
	if err != nil {
		add(p, "generated-files manifest is missing: %v", err)
		return
	}
	var listed []string
	if err := json.Unmarshal(data, &listed); err != nil {
		add(p, "generated-files manifest is not a JSON array of paths: %v", err)
		return
	}
	if len(listed) == 0 {
		add(p, "generated-files manifest lists no files")
	}
	for _, rel := range listed {
		if !fs.ValidPath(rel) || rel == "." {
			add(p, "manifest entry %q is not a relative slash-separated path", rel)
			continue
		}
		if _, ok := local[rel]; !ok {
			add(pkgDir+"/"+rel, "generated file listed in %s is missing", r.GeneratedManifest)
		}
	}
}

func (r ArtifactRules) checkLookup(add addFunc, pkgDir string, contents map[string][]byte) {
	if r.ResourceLookup == "" {
		return
	}
	p := pkgDir + "/" + r.ResourceLookup
	data, ok := contents[r.ResourceLookup]
	if !ok {
		add(p, "resource lookup is missing")
		return
	}
	if strings.HasSuffix(r.ResourceLookup, ".json") {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			add(p, "resource lookup is not valid JSON: %v", err)
			return
		}
		switch v := v.(type) {
		case map[string]any:
			if len(v) == 0 {
				add(p, "resource lookup is empty")
			}
		case []any:
			if len(v) == 0 {
				add(p, "resource lookup is empty")
			}
		default:
			add(p, "resource lookup must be a JSON object or array")
		}
		return
	}
	if r.ResourceTable == "" {
		add(p, "rules name no table to look for in the resource lookup")
		return
	}
	entries, err := pythonTableHasEntries(data, r.ResourceTable)
	switch {
	case err != nil:
		add(p, "resource lookup: %v", err)
	case !entries:
		add(p, "resource lookup is empty: %s lists no resource kinds", r.ResourceTable)
	}
}

// pythonTableHasEntries reports whether the last module-level assignment of
// table in a Python source is a bracketed literal with anything in it.
func pythonTableHasEntries(src []byte, table string) (bool, error) {
	assign := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(table) + `[ \t]*(?::[^=\n]*)?=[ \t]*`)
	locs := assign.FindAllIndex(src, -1)
	if locs == nil {
		return false, fmt.Errorf("%s is not assigned at module level", table)
	}
	rest := src[locs[len(locs)-1][1]:]
	closers := map[byte]byte{'{': '}', '[': ']', '(': ')'}
	if len(rest) == 0 || closers[rest[0]] == 0 {
		return false, fmt.Errorf("%s is not a {…}, […] or (…) literal, so its entries cannot be checked", table)
	}
	closer := closers[rest[0]]
	rest = rest[1:]
	for {
		rest = bytes.TrimLeft(rest, " \t\r\n\\")
		if len(rest) > 0 && rest[0] == '#' {
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				rest = rest[i:]
				continue
			}
			rest = nil
		}
		break
	}
	if len(rest) == 0 {
		return false, fmt.Errorf("%s literal is not closed", table)
	}
	return rest[0] != closer, nil
}

var stringPrefix = regexp.MustCompile(`^[rRuUbBfF]{1,2}["']`)

// pythonIsEmpty reports whether a module holds nothing but blank lines,
// comments and at most a leading docstring.
func pythonIsEmpty(src []byte) bool {
	var code []byte
	for _, line := range bytes.SplitAfter(src, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		code = append(code, line...)
	}
	code = bytes.TrimSpace(code)
	if m := stringPrefix.Find(code); m != nil {
		code = code[len(m)-1:]
	}
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if !bytes.HasPrefix(code, []byte(q)) {
			continue
		}
		end := bytes.Index(code[len(q):], []byte(q))
		if end < 0 {
			return false // unterminated: not a lone docstring, let the linters say what it is
		}
		return len(bytes.TrimSpace(code[len(q)+end+len(q):])) == 0
	}
	return len(code) == 0
}

func compareFiles(add addFunc, kind string, a Artifact, prefix string, local map[string]ArtifactFile) {
	for rel, want := range local {
		p := prefix + rel
		got, ok := a.Files[p]
		switch {
		case !ok:
			add(p, "%s: missing, but present in the checkout", kind)
		case got != want:
			add(p, "%s: content differs from the checkout", kind)
		}
	}
	for p := range a.Files {
		if rel, ok := strings.CutPrefix(p, prefix); ok {
			if _, inCheckout := local[rel]; !inCheckout {
				add(p, "%s: not in the checkout", kind)
			}
		}
	}
}
