//go:build realengine

package realengine

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"

	"dagger/shipyard/internal/testkit/fixtures"
)

// The Python toolchain image: Debian 13's real Python tools and the uv stand-in
// (internal/realengine/uvstandin), built by .ci/python-toolchain as an OCI layout and
// pushed to the suite's registry on first use. It replaces both the pinned Python image
// and the pinned uv image (Shipyard copies /uv and /uvx from the uv pin), and the Go image
// make is copied from.
const pythonToolchainEnv = "SHIPYARD_PYTHON_TOOLCHAIN"

var pythonToolchain struct {
	once sync.Once
	ref  string
	err  error
}

// pythonImage returns the toolchain image in the local registry, by digest, pushing it
// the first time a test asks.
func pythonImage(t testing.TB) string {
	t.Helper()
	pythonToolchain.once.Do(func() {
		start := time.Now()
		pythonToolchain.ref, pythonToolchain.err = pushPythonToolchain()
		t.Logf("pushed the Python toolchain image in %.1fs", time.Since(start).Seconds())
	})
	if pythonToolchain.err != nil {
		t.Fatalf("the Python toolchain image: %v", pythonToolchain.err)
	}
	return pythonToolchain.ref
}

func pushPythonToolchain() (string, error) {
	img, err := pythonToolchainImage()
	if err != nil {
		return "", err
	}
	return pushImage(img, "shipyard-test/python-toolchain")
}

// pythonToolchainImage reads the image from the layout .ci/python-toolchain wrote.
func pythonToolchainImage() (v1.Image, error) {
	dir := os.Getenv(pythonToolchainEnv)
	if dir == "" {
		return nil, fmt.Errorf("%s is unset: .ci/realengine builds the image with .ci/python-toolchain", pythonToolchainEnv)
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) == 0 {
		return nil, fmt.Errorf("%s has no manifest: %v", dir, err)
	}
	return idx.Image(m.Manifests[0].Digest)
}

// pythonPins are the constructor arguments that run a call's Python steps on the toolchain
// image: Python 3.13 (Debian 13's only Python), uv (the stand-in) and make (from the Go pin).
func pythonPins(t testing.TB) []string {
	img := pythonImage(t)
	return []string{"--pin", "python-3.13=" + img, "--pin", "uv=" + img, "--pin", "go=" + img}
}

// check-artifacts on the model repository fixture, with the toolchain image: the stand-in's
// uv build runs the real hatchling (python3 -m build --no-isolation), and Shipyard's
// artifact rules read the real wheel and sdist. A module the repository's .gitignore names
// is left out of both by the real hatchling, which no double knows: the rules name it.
func TestPythonToolchainCheckArtifacts(t *testing.T) {
	t.Parallel()
	pins := pythonPins(t)
	out := call(t, nil, append(append([]string{"--source", fixtures.ModelRepo(t, nil)}, pins...), "check-artifacts")...)
	mustContain(t, "check-artifacts", out, "wheel:    cloudcoil_models_cert_manager-1.17.1.0-py3-none-any.whl",
		"sdist:    cloudcoil_models_cert_manager-1.17.1.0.tar.gz", "artifacts match the checkout")

	ignored := fixtures.ModelRepo(t, map[string]string{
		".gitignore": ".venv/\ndist/\nscratch.py\n",
		fixtures.ModelRepoPackageDir + "/scratch.py": "X = 1\n",
	})
	r := cli(t, nil, "", append(append([]string{"call", "--source", ignored}, pins...), "check-artifacts")...)
	if r.err == nil {
		t.Fatalf("check-artifacts passed though hatchling left a module of the checkout out:\n%s", r)
	}
	mustContain(t, "check-artifacts", r.stdout+r.stderr, "scratch.py")
}
