//go:build realengine

package realengine

import (
	"context"
	"dagger/shipyard/internal/demoworld/corpus"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// docsCosignBlock is the cosign block of docs/tesk-core-images.md ("Verifying an image
// before you deploy it"), as a reader copies it.
func docsCosignBlock(t *testing.T) string {
	t.Helper()
	root, err := corpus.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "tesk-core-images.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "With **cosign** v2.6 or later:")
	if !ok {
		t.Fatal("docs/tesk-core-images.md has no cosign section")
	}
	_, after, ok = strings.Cut(after, "```sh\n")
	block, _, closed := strings.Cut(after, "```")
	if !ok || !closed || !strings.Contains(block, "cosign ") {
		t.Fatalf("docs/tesk-core-images.md: no sh block of cosign commands after the cosign heading:\n%.500s", after)
	}
	return block
}

// runDocsCosign runs the docs' cosign block exactly as printed but for two things a test
// cannot avoid: IMAGE names image, and cosign reads the test Sigstore's trusted root
// (offline) instead of the public-good one, through a cosign on PATH that adds those two
// flags after the subcommand. The identity, the issuer and the --type names are the docs'.
func runDocsCosign(t *testing.T, image, trustedRoot string) (string, error) {
	t.Helper()
	var lines []string
	images := 0
	for _, line := range strings.Split(docsCosignBlock(t), "\n") {
		if strings.HasPrefix(line, "IMAGE=") {
			line = "IMAGE=" + image
			images++
		}
		lines = append(lines, line)
	}
	if images != 1 {
		t.Fatalf("the docs' cosign block sets IMAGE %d times, want once", images)
	}
	cosignBin := os.Getenv(cosignEnv)
	if cosignBin == "" {
		t.Fatalf("%s is unset: .ci/realengine-tools builds it", cosignEnv)
	}
	bin := t.TempDir()
	write(t, filepath.Join(bin, "cosign"), "#!/bin/sh\nsub=$1\nshift\nexec '"+cosignBin+"' \"$sub\" --offline --trusted-root '"+trustedRoot+"' \"$@\"\n")
	if err := os.Chmod(filepath.Join(bin, "cosign"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "set -e\n" + strings.Join(lines, "\n")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	t.Logf("the docs' cosign block on %s: %v\n%s\n%.2000s", image, err, script, out)
	return string(out), err
}
