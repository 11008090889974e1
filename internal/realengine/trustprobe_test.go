//go:build realengine

package realengine

import (
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/models/upstreams/upstreamstest"
)

// A bad --pin fails every function in the constructor, pr-title (which pulls no image)
// included: a misspelt name, an image that is not one, an image by tag.
func TestBadPinFailsPrTitle(t *testing.T) {
	t.Parallel()
	const digest = "@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, pin := range []string{"trivy=notanimage", "nosuch=alpine" + digest, "python-3.12=python:3.12"} {
		t.Run(pin, func(t *testing.T) {
			t.Parallel()
			r := cli(t, nil, "", "call", "--pin", pin, "pr-title", "--title", "fix: retry uploads")
			if r.err == nil {
				t.Fatalf("pr-title passed with --pin %s:\n%s", pin, r)
			}
			mustContain(t, "the error", r.stdout+r.stderr, pin, "uv, trivy, k3s, go", "NAME=IMAGE@sha256:<64 hex digits>")
		})
	}
}

// probeMake is the source's own make target, as a pull request could write it: it prints
// the marks earlier calls left in uv's cache volume, leaves its own (the integration's
// probe-mark file, new in every call), and fails, so no Python has to run.
const probeMake = `#!/bin/sh
cache=/root/.cache/uv
mkdir -p "$cache"
echo "uv cache held: [$(tr '\n' ' ' < "$cache/probe-marks" 2>/dev/null)]" >&2
cat "models/${1#gen-repo-}/probe-mark" >> "$cache/probe-marks"
exit 1
`

// probeImage is the suite's base image with probeMake as make, and stand-ins for uv and
// uvx (which the graph copies in and never runs here): pinned as uv and go, whose make the
// model graphs copy.
func probeImage(t *testing.T) string {
	t.Helper()
	idx, err := name.NewDigest(strings.Replace(baseImage, registryHost, "127.0.0.1:"+registryPort, 1), name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	index, err := remote.Index(idx)
	if err != nil {
		t.Fatal(err)
	}
	base, err := index.Image(platformImage(t, index, "amd64"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{}
	for path, content := range map[string]string{"usr/bin/make": probeMake, "uv": "#!/bin/sh\nexit 1\n", "uvx": "#!/bin/sh\nexit 1\n"} {
		host := filepath.Join(dir, filepath.Base(path))
		write(t, host, content)
		files[path] = host
	}
	layer, err := fileLayer(files)
	if err != nil {
		t.Fatal(err)
	}
	img, err := mutate.AppendLayers(base, layer)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := pushImage(img, "shipyard-test/trust-probe")
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// platformImage is the digest of the index's image for arch.
func platformImage(t *testing.T, index v1.ImageIndex, arch string) v1.Hash {
	t.Helper()
	m, err := index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range m.Manifests {
		if d.Platform != nil && d.Platform.Architecture == arch {
			return d.Digest
		}
	}
	t.Fatalf("the base image has no %s image", arch)
	return v1.Hash{}
}

var heldMarks = regexp.MustCompile(`uv cache held: \[([^\]]*)\]`)

// updateReposProbe sets up the probe of update-repos' uv cache volume (the source's make
// target, a GitHub simulator, a token with push access), and returns the call: from the
// client c, credentialed (the release level) or a dry run (the pull-request level), it
// leaves a new mark in the volume it mounts and returns that mark and the marks the volume
// held before.
func updateReposProbe(t *testing.T) func(c client, credentialed bool) (mark, held string) {
	t.Helper()
	probe := probeImage(t)
	src := t.TempDir()
	upstreamstest.WriteGenerator(t, src)
	write(t, filepath.Join(src, "Makefile"), "gen-repo-%:\n\trm -rf output/models-$*\n\tuvx cookiecutter --no-input --output-dir=output --config-file=models/$*/cookiecutter.yaml cookiecutter _config_dir=$$PWD/models/$*\n")
	write(t, filepath.Join(src, "cookiecutter", "cookiecutter.json"), "{}\n")
	const integration = "keda"

	sim := githubsim.New(t)
	const token = "ghp_ci_github_token_of_cloudcoil"
	sim.AddToken(token, githubsim.Token{PushAccess: true})
	commit := sim.AddRepo("cloudcoil", "cloudcoil").CommitOnBranch("main", "Merge the update", map[string]string{"README.md": "Cloudcoil\n"})
	api := publishGitHub(t, sim)

	args := []string{"--source", src, "--repo", "cloudcoil/cloudcoil", "--github-api", api,
		"--pin", "python-3.13=" + baseImage, "--pin", "uv=" + probe, "--pin", "go=" + probe}
	var mu sync.Mutex // one call at a time: each writes its mark into the one source tree
	return func(c client, credentialed bool) (mark, held string) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		b := make([]byte, 8)
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
		mark = "mark-" + hex.EncodeToString(b)
		write(t, filepath.Join(src, "models", integration, "probe-mark"), mark+"\n")
		call := append([]string{"call"}, args...)
		env := map[string]string{}
		if credentialed {
			env["GHTOKEN"] = token
			call = append(call, "--github-token", "env://GHTOKEN", "update-repos", "--name", integration, "--commit", commit)
		} else {
			call = append(call, "update-repos", "--name", integration, "--dry-run")
		}
		r := c.cli(t, env, "", call...)
		m := heldMarks.FindStringSubmatch(r.stdout + r.stderr)
		if r.err == nil || m == nil {
			t.Fatalf("the source's make target did not report the cache (credentialed %t):\n%s", credentialed, r)
		}
		return mark, m[1]
	}
}
