//go:build realengine

package realengine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The engine loads the module without its tests (dagger.json's include), so its codegen's
// `go mod tidy` sees only what builds in the engine read, and downloads nothing only a test
// imports. `dagger develop` writes the go.mod that tidy left: it keeps what the module
// binary, the GitHub command and the demo server import, and no test-only module.
func TestEngineTidiesNoTestOnlyModule(t *testing.T) {
	dir := t.TempDir()
	if err := copyTree(repoRoot, dir); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Minute)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(ctx, daggerCLI, "--progress=plain", "develop", "-m", dir).CombinedOutput()
	t.Logf("dagger develop (%.1fs)", time.Since(start).Seconds())
	if err != nil {
		t.Fatalf("dagger develop: %v\n%s", err, tail(string(out), 40))
	}
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goMod := string(b)
	for _, testOnly := range []string{
		"github.com/rhysd/actionlint",            // examples' workflow tests
		"github.com/google/go-containerregistry", // publishing's test kit
		"github.com/moby/patternmatcher",         // module_source_test.go
		"github.com/docker/cli",                  // go-containerregistry's
	} {
		if strings.Contains(goMod, testOnly+" ") {
			t.Errorf("the engine's codegen kept %s in go.mod: a test-only module was in the module's source", testOnly)
		}
	}
	for _, built := range []string{
		"github.com/google/go-github/",  // cmd/github
		"github.com/getkin/kin-openapi", // the demo server
		"github.com/pelletier/go-toml/", // the module binary
	} {
		if !strings.Contains(goMod, built) {
			t.Errorf("the engine's codegen dropped %s from go.mod, which a build in the engine imports:\n%s", built, goMod)
		}
	}
}
