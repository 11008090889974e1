package corpus

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRepoRootHoldsManifest(t *testing.T) {
	if _, err := os.Stat(filepath.Join(RepoRoot(t), "dagger.json")); err != nil {
		t.Fatalf("dagger.json not at the root found: %v", err)
	}
}

func TestReadCorpusFile(t *testing.T) {
	b := Read(t, "pep440", "ordered.txt")
	if len(b) == 0 {
		t.Fatal("pep440/ordered.txt is empty")
	}
}
