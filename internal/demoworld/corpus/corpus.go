// Package corpus locates the shared real-world test data (upstream tags, PEP 440 vectors,
// Trivy reports, generated release notes, PR titles) that lives beside the repository in
// ../shared/corpus. The data is read where it lies, never copied into the project.
package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the corpus folder with the given name (e.g. "pep440"). When the shared corpus
// is not beside this checkout the test skips, naming the folder, except in CI (the CI
// environment variable set), where missing data would make a green run prove nothing, so
// the test fails instead.
func Dir(t testing.TB, name string) string {
	t.Helper()
	var why string
	dir := ""
	if root, err := FindRepoRoot(); err != nil {
		why = fmt.Sprintf("cannot find the repository root: %v", err)
	} else {
		dir = filepath.Join(root, "..", "shared", "corpus", name)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			why = fmt.Sprintf("../shared/corpus/%s is absent beside this checkout", name)
		}
	}
	switch WhenMissing(os.Getenv("CI") != "", why == "") {
	case Fail:
		t.Fatalf("corpus %s: %s, and CI is set, where the corpus must be present", name, why)
	case Skip:
		t.Skipf("corpus %s: %s", name, why)
	}
	return dir
}

// Verdict is what a test does about the corpus.
type Verdict int

const (
	Use  Verdict = iota // the corpus is there: read it
	Skip                // absent on a developer's machine: skip, naming it
	Fail                // absent in CI: fail
)

// WhenMissing decides what a test does, from whether the CI variable is set and whether the
// corpus folder was found.
func WhenMissing(ci, found bool) Verdict {
	switch {
	case found:
		return Use
	case ci:
		return Fail
	default:
		return Skip
	}
}

// Read returns the bytes of one corpus file, skipping or failing like Dir when the corpus
// is absent.
func Read(t testing.TB, name, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(t, name), file))
	if err != nil {
		t.Fatalf("corpus %s/%s: %v", name, file, err)
	}
	return b
}

// FindRepoRoot walks up from the working directory (a package folder under go test) to the
// repository root, the folder holding dagger.json.
func FindRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "dagger.json")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// RepoRoot returns the repository root (the folder holding dagger.json).
func RepoRoot(t testing.TB) string {
	t.Helper()
	root, err := FindRepoRoot()
	if err != nil {
		t.Fatalf("repository root: %v", err)
	}
	return root
}
