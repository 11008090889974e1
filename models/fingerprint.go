package models

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"dagger/shipyard/internal/pyproject"
)

// fingerprintScheme starts every hashed stream, so a change to what the
// fingerprint covers is a new scheme rather than a silent drift.
const fingerprintScheme = "shipyard-models-fingerprint-v1\n"

// Fingerprint returns "sha256:<hex>" over the generated package files and
// their metadata, so that an unchanged generation is recognised and not
// released again.
//
// Only paths and contents count, taken in sorted order: not modification
// times, permissions or the order a directory lists its entries. The package
// version never counts, because every release changes it:
//
//   - pyproject.toml: the version key of [project];
//   - PKG-INFO and METADATA: the Version header;
//   - __init__.py and _version.py: module-level __version__ and
//     __version_tuple__ assignments;
//   - uv.lock: the version of the project's own (editable or virtual) package.
//
// Left out as tool output rather than generation: .git, __pycache__, *.pyc,
// *.egg-info, virtual environments and lint/type/test caches anywhere; dist/,
// build/ and coverage and test reports only at the root (a nested build/ can be
// a generated API group, such as OpenShift's); and the root
// .cloudcoil-release.json, which records the fingerprint and version of a
// release and so cannot be part of it.
//
// Callers pass the tree that ships (for a Dagger Directory, filtered to the
// project metadata and the package directory): any other file that is given
// counts, and so would make a change to it a reason to release.
func Fingerprint(files fs.FS) (string, error) {
	var paths []string
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if d.IsDir() {
			if ignoredDir(p) {
				return fs.SkipDir
			}
			return nil
		}
		if !ignoredFile(p) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	sort.Strings(paths)

	sum := sha256.New()
	io.WriteString(sum, fingerprintScheme)
	for _, p := range paths {
		kind, digest, err := fingerprintEntry(files, p)
		if err != nil {
			return "", fmt.Errorf("fingerprint %s: %w", p, err)
		}
		// Length-prefixed fields keep "a"+"bc" and "ab"+"c" apart.
		writeField(sum, []byte(kind))
		writeField(sum, []byte(p))
		writeField(sum, digest)
	}
	return "sha256:" + hex.EncodeToString(sum.Sum(nil)), nil
}

func writeField(h hash.Hash, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// fingerprintEntry digests one file: a symlink by its target, since following
// it could leave the tree; a regular file by its content with the version
// normalised away.
func fingerprintEntry(files fs.FS, p string) (kind string, digest []byte, err error) {
	info, err := fs.Lstat(files, p)
	if err != nil {
		return "", nil, err
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := fs.ReadLink(files, p)
		if err != nil {
			return "", nil, err
		}
		d := sha256.Sum256([]byte(target))
		return "symlink", d[:], nil
	case !info.Mode().IsRegular():
		return "", nil, fmt.Errorf("unsupported file type %s", info.Mode().Type())
	}
	h := sha256.New()
	if versionBearing(p) {
		data, err := fs.ReadFile(files, p)
		if err != nil {
			return "", nil, err
		}
		h.Write(normaliseVersion(p, data))
		return "file", h.Sum(nil), nil
	}
	f, err := files.Open(p)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	if _, err := io.Copy(h, f); err != nil {
		return "", nil, err
	}
	return "file", h.Sum(nil), nil
}

// Ignore rules shared by Fingerprint and the checkout side of CheckArtifacts.
var (
	ignoredDirsAnywhere = map[string]bool{
		".git": true, "__pycache__": true, ".venv": true,
		".mypy_cache": true, ".ruff_cache": true, ".pytest_cache": true, ".tox": true, ".nox": true,
	}
	ignoredDirsAtRoot  = map[string]bool{"dist": true, "build": true}
	ignoredFilesAtRoot = map[string]bool{
		".cloudcoil-release.json": true, ".coverage": true, "coverage.xml": true, "junit.xml": true,
	}
)

func ignoredDir(p string) bool {
	name := path.Base(p)
	if ignoredDirsAnywhere[name] || strings.HasSuffix(name, ".egg-info") {
		return true
	}
	return !strings.Contains(p, "/") && ignoredDirsAtRoot[name]
}

func ignoredFile(p string) bool {
	name := path.Base(p)
	if name == ".git" || strings.HasSuffix(name, ".pyc") || strings.HasSuffix(name, ".pyo") {
		return true // a .git file marks a worktree or submodule
	}
	return !strings.Contains(p, "/") && ignoredFilesAtRoot[name]
}

func versionBearing(p string) bool {
	switch path.Base(p) {
	case "pyproject.toml", "PKG-INFO", "METADATA", "__init__.py", "_version.py", "uv.lock":
		return true
	}
	return false
}

// versionPlaceholder replaces version values; it only has to be the same for
// every version.
const versionPlaceholder = "<version>"

// normaliseVersion rewrites the version-bearing lines of a file named like p.
func normaliseVersion(p string, data []byte) []byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	switch path.Base(p) {
	case "pyproject.toml":
		normalisePyproject(p, data, lines)
	case "PKG-INFO", "METADATA":
		normaliseMetadata(lines)
	case "__init__.py", "_version.py":
		normalisePythonVersion(lines)
	case "uv.lock":
		normaliseLock(p, data, lines)
	}
	return bytes.Join(lines, nil)
}

// lineEnding splits a line into its text and its "\n" or "\r\n" ending.
func lineEnding(line []byte) (text, end []byte) {
	text = bytes.TrimRight(line, "\r\n")
	return text, line[len(text):]
}

func replaceLine(lines [][]byte, i int, text string) {
	_, end := lineEnding(lines[i])
	lines[i] = append([]byte(text), end...)
}

// The TOML files are read with the TOML parser, and the line a version value starts on is
// replaced whole, so spacing, quoting and comments around it do not count either. A file
// that is not valid TOML is hashed as it is: its version then counts, which can only make
// a release happen, never hide a change.

func normalisePyproject(p string, data []byte, lines [][]byte) {
	doc, err := pyproject.Parse(p, data)
	if err != nil {
		return
	}
	for _, v := range doc.StringValues("project.version") {
		replaceLine(lines, v.Line-1, "version = "+versionPlaceholder)
	}
}

// normaliseMetadata handles core metadata (RFC 822 style): headers end at the
// first empty line; the body is the long description and is kept.
func normaliseMetadata(lines [][]byte) {
	for i, line := range lines {
		text, _ := lineEnding(line)
		if len(text) == 0 {
			return
		}
		if k, _, ok := bytes.Cut(text, []byte(":")); ok && strings.EqualFold(string(k), "Version") {
			replaceLine(lines, i, "Version: "+versionPlaceholder)
		}
	}
}

// pythonVersionAssign matches module-level assignments of the version,
// including setuptools-scm's chained `__version__ = version = '1.2.3'` and
// annotated `__version__: str = "1.2.3"`.
var pythonVersionAssign = regexp.MustCompile(`^(__version__|__version_tuple__)\b[^=]*=`)

func normalisePythonVersion(lines [][]byte) {
	for i, line := range lines {
		text, _ := lineEnding(line)
		if m := pythonVersionAssign.Find(text); m != nil && !bytes.HasPrefix(text[len(m):], []byte("=")) {
			name := "__version__"
			if bytes.HasPrefix(text, []byte("__version_tuple__")) {
				name = "__version_tuple__"
			}
			replaceLine(lines, i, name+" = "+versionPlaceholder)
		}
	}
}

// normaliseLock blanks the version of the project's own [[package]] entry in
// uv.lock, the one whose source is the project directory itself.
func normaliseLock(p string, data []byte, lines [][]byte) {
	doc, err := pyproject.Parse(p, data)
	if err != nil {
		return
	}
	own := map[int]bool{}
	for i, pkg := range doc.Tables("package") {
		source, _ := pkg["source"].(map[string]any)
		if source["editable"] == "." || source["virtual"] == "." {
			own[i] = true
		}
	}
	for _, v := range doc.StringValues("package.version") {
		if own[v.Entry] {
			replaceLine(lines, v.Line-1, "version = "+versionPlaceholder)
		}
	}
}
