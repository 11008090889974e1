// Package corpus locates the shared real-world test data (upstream tags, PEP 440 vectors,
// Trivy reports, generated release notes, PR titles) that lives beside the repository in
// ../shared/corpus. The data is read where it lies, never copied into the project.
package corpus

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the corpus folder with the given name (e.g. "pep440"), or skips the test with
// a message naming the folder when the shared corpus is not beside this checkout.
func Dir(t testing.TB, name string) string {
	t.Helper()
	root, err := FindRepoRoot()
	if err != nil {
		t.Skipf("corpus %s: cannot find the repository root: %v", name, err)
	}
	dir := filepath.Join(root, "..", "shared", "corpus", name)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("corpus %s: ../shared/corpus/%s is absent beside this checkout", name, name)
	}
	return dir
}

// Read returns the bytes of one corpus file, skipping like Dir when the corpus is absent.
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
