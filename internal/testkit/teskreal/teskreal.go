// Package teskreal builds, at test time, a tesk-core project laid out as tesk-core's
// development guide describes (pyproject.toml with extras dev and docs, tests split into
// unit, integration and e2e, MkDocs docs, pre-commit hooks, CITATION.cff, Alpine
// Dockerfiles) around the real code of tesk-core from the shared corpus. A fixture written
// from scratch runs our guesses; this one runs the real package, its real tests and their
// real coverage through Shipyard's jobs.
//
// The real code is read from the corpus where it lies and never copied into this
// repository. Only the files we author (project/) are embedded. Every change to a real file
// is an entry of Edits, and README.md says why.
package teskreal

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
)

//go:embed all:project
var authored embed.FS

// Placement maps each real test file of the corpus (tests/…) to its place in the fixture:
// its level by the guide's definitions. Unit tests mock Kubernetes, S3 and the network;
// test_filer_ftp_pytest.py starts a local FTP server, so it is an integration test.
func Placement() map[string]string {
	return map[string]string{
		"tests/assertThrows.py":              "tests/unit/assertThrows.py",
		"tests/test_filer.py":                "tests/unit/test_filer.py",
		"tests/test_filer_general_pytest.py": "tests/unit/test_filer_general_pytest.py",
		"tests/test_filer_http_pytest.py":    "tests/unit/test_filer_http_pytest.py",
		"tests/test_job.py":                  "tests/unit/test_job.py",
		"tests/test_s3_filer.py":             "tests/unit/test_s3_filer.py",
		"tests/test_taskmaster.py":           "tests/unit/test_taskmaster.py",
		// Renamed: pytest collects test_*.py only, which the guide requires of test files.
		"tests/FilerClassTest.py":        "tests/unit/test_filer_class.py",
		"tests/test_filer_ftp_pytest.py": "tests/integration/test_filer_ftp_pytest.py",
	}
}

// LeftOut are the corpus' test files the fixture does not hold, with the reason.
func LeftOut() map[string]string {
	return map[string]string{
		"tests/TaskMasterTest.py": "Python 2 (print statements): it cannot be imported, and pytest never collected it",
	}
}

// Resources is where the tests' data files (corpus tests/resources/) go: the guide puts
// the unit tests' files in tests/unit/resources/.
const Resources = "tests/unit/resources/"

// Edit is one change to a real file: Old must occur exactly once in File (its path in the
// fixture) and becomes New.
type Edit struct {
	File, Old, New, Why string
}

// Edits are the only changes to real files. The tests open files by paths relative to the
// repository root, which moved with the split into levels.
func Edits() []Edit {
	return []Edit{
		{
			File: "tests/unit/test_filer.py",
			Old:  "'tests/resources/copyDirTest/'", New: "'tests/unit/resources/copyDirTest/'",
			Why: "the resources moved to tests/unit/resources/",
		},
		{
			File: "tests/unit/test_filer_http_pytest.py",
			Old:  "'tests/test_filer_http_pytest.py'", New: "'tests/unit/test_filer_http_pytest.py'",
			Why: "the file uploads itself, which moved to tests/unit/",
		},
		{
			File: "tests/unit/test_s3_filer.py",
			Old:  `("tests", "s3://tesk/folder1/folder2","DIRECTORY",0)`,
			New:  `("tests/unit", "s3://tesk/folder1/folder2","DIRECTORY",0)`,
			Why:  "the test uploads the folder holding test_filer.py, now tests/unit/",
		},
		{
			File: "tests/integration/test_filer_ftp_pytest.py",
			Old:  "'tests/test_filer.py'", New: "'tests/integration/test_filer_ftp_pytest.py'",
			Why: "the test uploads a file that must exist; test_filer.py moved to another level, so it uploads itself",
		},
	}
}

// Files returns the fixture's files, by slash-separated path, built from the corpus
// (skipping or failing the test as corpus.Dir does when the corpus is absent).
func Files(t testing.TB) map[string]string {
	t.Helper()
	files, err := Build(filepath.Join(corpus.Dir(t, "tesk-core"), "tree"))
	if err != nil {
		t.Fatalf("teskreal: %v", err)
	}
	return files
}

// Tree writes the fixture into a temporary directory and returns it. The project holds no
// uv.lock: a lock records what an environment resolves to, so the caller locks it there
// (LockCommand) before running Shipyard's jobs, which sync with --frozen.
func Tree(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := Write(dir, Files(t)); err != nil {
		t.Fatalf("teskreal: %v", err)
	}
	return dir
}

// LockCommand locks the project in the environment that will run it.
func LockCommand() []string { return []string{"uv", "lock"} }

// Build assembles the fixture from tree, the root of tesk-core's real repository.
func Build(tree string) (map[string]string, error) {
	files := map[string]string{}
	real := func(from, to string) error {
		b, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(from)))
		if err != nil {
			return err
		}
		files[to] = string(b)
		return nil
	}
	// The package and the tests' data, as they are.
	for _, dir := range []struct{ from, to string }{{"src/tesk_core", "src/tesk_core/"}, {"tests/resources", Resources}} {
		root := filepath.Join(tree, filepath.FromSlash(dir.from))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			return real(dir.from+"/"+filepath.ToSlash(rel), dir.to+filepath.ToSlash(rel))
		})
		if err != nil {
			return nil, fmt.Errorf("corpus %s: %w", dir.from, err)
		}
	}
	for from, to := range Placement() {
		if err := real(from, to); err != nil {
			return nil, fmt.Errorf("corpus: %w", err)
		}
	}
	for _, e := range Edits() {
		s, ok := files[e.File]
		if !ok {
			return nil, fmt.Errorf("edit of %s: no such file", e.File)
		}
		if n := strings.Count(s, e.Old); n != 1 {
			return nil, fmt.Errorf("edit of %s: %q occurs %d times, want once", e.File, e.Old, n)
		}
		files[e.File] = strings.Replace(s, e.Old, e.New, 1)
	}
	// Our own files.
	err := fs.WalkDir(authored, "project", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := authored.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "project/")
		if _, clash := files[rel]; clash {
			return fmt.Errorf("%s is both real and authored", rel)
		}
		files[rel] = string(b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// Write writes files under dir.
func Write(dir string, files map[string]string) error {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if !fs.ValidPath(p) || path.Clean(p) != p {
			return fmt.Errorf("write: bad path %q", p)
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(files[p]), 0o644); err != nil {
			return err
		}
	}
	return nil
}
