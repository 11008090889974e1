package models

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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
// layout. The zero value disables the model discovery check; use
// DefaultArtifactRules for Cloudcoil's generated repositories.
type ArtifactRules struct {
	// ImportRoot is the checkout directory that is the root of the import path
	// in a wheel: "" for a flat layout, "src" for a src layout.
	ImportRoot string

	// EntryPointGroup is the entry point group Cloudcoil finds model packages
	// through at run time (cloudcoil/resources.py: entry_points(group=…)); empty
	// disables the discovery check. Every entry of the group a wheel declares
	// must resolve to a module in the wheel, and the module each codegen
	// namespace names must be found, by an entry point or by NamespaceRoot,
	// and define at least one resource model: a package whose models are never
	// found, or that has none, imports fine and resolves nothing.
	EntryPointGroup string

	// NamespaceRoot is the package whose direct subpackages Cloudcoil scans
	// for models without an entry point (_Scheme._namespace_packages).
	NamespaceRoot string
}

// DefaultArtifactRules match the generated Cloudcoil model repositories: a
// flat layout, models found through the cloudcoil_models entry points or as
// cloudcoil.models.<name>.
func DefaultArtifactRules() ArtifactRules {
	return ArtifactRules{
		EntryPointGroup: "cloudcoil_models",
		NamespaceRoot:   "cloudcoil.models",
	}
}

// CheckArtifacts applies DefaultArtifactRules.
func CheckArtifacts(checkout fs.FS, pkgDir string, wheel, sdist Artifact) []Problem {
	return DefaultArtifactRules().Check(checkout, pkgDir, wheel, sdist)
}

// Check runs the check-artifacts rules on a generated checkout (the
// repository root, with pyproject.toml) and the wheel and sdist built from it.
// pkgDir is the package directory in the checkout, e.g.
// "cloudcoil/models/kubernetes". It reports:
//
//   - a package without __init__.py or without model modules (any .py other
//     than __init__.py), and model modules with nothing but blank lines,
//     comments and a docstring;
//   - models Cloudcoil would not find in the wheel: a codegen namespace
//     ([[tool.cloudcoil.codegen.models]] namespace) that no entry point of
//     EntryPointGroup names and that is not directly under NamespaceRoot, an
//     entry point that resolves to no module in the wheel, and a found module
//     that defines no resource model (no class deriving from Resource);
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
	checkModules(add, pkgDir, local, contents)
	for _, b := range usable {
		compareFiles(add, b.kind, b.art, b.prefix, local)
		if b.kind == "wheel" {
			r.checkDiscovery(add, checkout, b.art)
		}
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

func checkModules(add addFunc, pkgDir string, local map[string]ArtifactFile, contents map[string][]byte) {
	if _, ok := local["__init__.py"]; !ok {
		add(pkgDir+"/__init__.py", "package __init__.py is missing")
	}
	modules := 0
	for rel, data := range contents {
		if !strings.HasSuffix(rel, ".py") || path.Base(rel) == "__init__.py" {
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
