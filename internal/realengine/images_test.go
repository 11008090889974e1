//go:build realengine

package realengine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"dagger/shipyard/pipelines/publish/publishtest"
)

// imageProject writes a repository laid out like tesk-core's images: one Dockerfile per
// image in containers/, building on the local base image and recording the version the
// build was given. Python cannot be installed here (no package index), so the images carry
// a stand-in `python` that answers the release's version check with that version, as
// tesk-core's images answer with their package's metadata; it uses only shell builtins,
// since under the engine's arm64 emulator a script cannot start another program. Each
// also records the machine its build step ran on (uname -m), so a test can tell an
// emulated build from a native one.
func imageProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, img := range []string{"taskmaster", "filer"} {
		df := "FROM " + baseImage + "\n" +
			"ARG SETUPTOOLS_SCM_PRETEND_VERSION\n" +
			"LABEL org.opencontainers.image.title=" + img + "\n" +
			"RUN mkdir -p /opt/tesk && echo \"$SETUPTOOLS_SCM_PRETEND_VERSION\" > /opt/tesk/version && " +
			"printf '#!/bin/sh\\nread v < /opt/tesk/version && echo \"$v\"\\n' > /usr/local/bin/python && chmod +x /usr/local/bin/python && " +
			"uname -m > /opt/tesk/machine\n" +
			"ENTRYPOINT [\"cat\", \"/opt/tesk/version\"]\n"
		write(t, filepath.Join(dir, "containers", img+".Dockerfile"), df)
	}
	write(t, filepath.Join(dir, "pyproject.toml"), "[project]\nname = \"teskcore\"\ndynamic = [\"version\"]\n")
	return dir
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestImagesBuildFromTheRepositoryDockerfiles(t *testing.T) {
	t.Parallel()
	src := imageProject(t)
	out := call(t, nil, "--source", src, "images", "--version", "0.11.0")
	if n := strings.Count(out, "Container"); n < 2 {
		t.Errorf("images printed %d containers, want 2:\n%s", n, out)
	}
	// with-platforms on the engine's own platform (another architecture would need an
	// emulator the engine here lacks): one container per image and platform.
	out = call(t, nil, "--source", src, "with-platforms", "--platform", "linux/amd64", "images", "--version", "0.11.0")
	if n := strings.Count(out, "Container"); n < 2 {
		t.Errorf("with-platforms images printed %d containers, want 2:\n%s", n, out)
	}
	// One image, chained: the container's own file, read back through the CLI.
	version := call(t, nil, "--source", src, "image", "--name", "filer", "--version", "0.11.0", "file", "--path", "/opt/tesk/version", "contents")
	if strings.TrimSpace(version) != "0.11.0" {
		t.Errorf("image --name filer carries version %q", version)
	}
}

// The image supply chain on a real engine: push both images by digest to the local
// registry, attest and sign them with the test Sigstore (the signing tool built in the
// engine from the module's source, in the local Go image), tag them, and verify the tagged
// image's signature and provenance against the signer's identity.
func TestPushAttestSignTagVerify(t *testing.T) {
	t.Parallel()
	src := imageProject(t)
	sig := publishtest.StartSigstore(t)
	sigURL := serve(t, proxyTo(t, sig.URL))
	root, err := os.ReadFile(sig.TrustedRoot)
	if err != nil {
		t.Fatal(err)
	}
	rootFile := filepath.Join(t.TempDir(), "trusted_root.json")
	write(t, rootFile, string(root))

	token := publishtest.Token(map[string]any{
		"iss": publishtest.Issuer, "sub": "repo:elixir-cloud-aai/tesk-core:ref:refs/heads/dev",
		"job_workflow_ref": publishtest.WorkflowRef, "aud": "sigstore", "exp": time.Now().Add(time.Hour).Unix(),
	})
	const password = "realengine0registry0SECRET"
	env := map[string]string{"OIDC": token, "REGPASS": password}
	ctor := []string{"--source", src, "--registry", registryHost, "--org", "shipyard-test",
		"--registry-username", "bot", "--registry-password", "env://REGPASS", "--pin", "go=" + baseImage}

	digests := call(t, env, append(ctor, "push-by-digest", "--version", "0.11.0")...)
	var pushed map[string]string
	if err := json.Unmarshal([]byte(strings.TrimSpace(digests)), &pushed); err != nil || len(pushed) != 2 {
		t.Fatalf("push-by-digest printed %q (%v)", digests, err)
	}
	for img, printed := range pushed {
		// The handoff names each image in full, in the registry as the engine reaches it.
		repo, d, _ := strings.Cut(printed, "@")
		if want := registryHost + "/shipyard-test/tesk-core-" + img; repo != want {
			t.Errorf("push-by-digest printed %s for %s, want it in %s", printed, img, want)
		}
		ref, err := name.ParseReference("127.0.0.1:"+registryPort+"/shipyard-test/tesk-core-"+img+"@"+d, name.Insecure)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := remote.Head(ref); err != nil {
			t.Errorf("%s was not pushed: %v", ref, err)
		}
		pushed[img] = d // what the later steps' outputs name
	}

	// The pushed digests scanned by real Trivy, anonymously, with the reports and the
	// verdict exported: the unfixed CRITICAL and the LOW of the suite's database pass.
	reports := t.TempDir()
	call(t, env, "--source", src, "--registry", registryHost, "--org", "shipyard-test", "--pin", "trivy="+trivyImage, "--pin", "go="+baseImage,
		"scan-digests", "--digests", digests, "export", "--path", reports)
	if v, err := os.ReadFile(filepath.Join(reports, "verdict.json")); err != nil || !strings.Contains(string(v), `"passed": true`) && !strings.Contains(string(v), `"passed":true`) {
		t.Errorf("scan-digests' verdict.json: %s (%v)", v, err)
	}

	sigstore := append(append([]string{}, ctor...), "with-sigstore", "--oidc-token", "env://OIDC",
		"--fulcio-url", sigURL, "--rekor-url", sigURL, "--trusted-root", rootFile,
		"--builder-id", "https://shipyard.example/realengine", "--build-type", "https://shipyard.example/buildtypes/realengine/v1")
	// By default each image is an index of linux/amd64 and linux/arm64: the index and each
	// platform image get provenance and a signature.
	attested := call(t, env, append(sigstore, "attest", "--digests", digests, "--sha", strings.Repeat("a", 40))...)
	signed := call(t, env, append(sigstore, "sign", "--digests", digests)...)
	for _, out := range []string{attested, signed} {
		mustContain(t, "attest and sign", out, `"filer (linux/arm64)"`, `"taskmaster (linux/amd64)"`, pushed["filer"])
	}
	call(t, env, append(ctor, "tag-images", "--digests", digests, "--tag", "0.11.0")...)

	// The weekly scan of the published tag: the tag's index, then each platform image by
	// its own digest, anonymously.
	weekly := t.TempDir()
	call(t, env, "--source", src, "--pin", "trivy="+trivyImage, "--pin", "go="+baseImage, "scan-published",
		"--ref", registryHost+"/shipyard-test/tesk-core-filer:0.11.0", "--fail", "export", "--path", weekly)
	for _, f := range []string{"filer-0.11.0-linux-amd64.json", "filer-0.11.0-linux-arm64.sarif"} {
		if _, err := os.Stat(filepath.Join(weekly, f)); err != nil {
			t.Errorf("scan-published wrote no %s: %v", f, err)
		}
	}
	targets, err := os.ReadFile(filepath.Join(weekly, "targets.json"))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "scan-published's targets.json", string(targets), pushed["filer"], `"platform": "linux/arm64"`)

	identity := publishtest.IdentityRegexp
	verified := call(t, env, append(ctor, "verify", "--image", registryHost+"/shipyard-test/tesk-core-filer:0.11.0",
		"--identity", identity, "--issuer", publishtest.Issuer, "--trusted-root", rootFile)...)
	mustContain(t, "verify", verified, pushed["filer"], "(linux/amd64)\n", "(linux/arm64)\n")

	other := "^" + regexp.QuoteMeta("https://github.com/someone/else/.github/workflows/x.yml@refs/heads/main") + "$"
	r := cli(t, env, "", append([]string{"call"}, append(ctor, "verify", "--image", registryHost+"/shipyard-test/tesk-core-filer:0.11.0",
		"--identity", other, "--issuer", publishtest.Issuer, "--trusted-root", rootFile)...)...)
	if r.err == nil {
		t.Errorf("verify accepted another identity:\n%s", r)
	}
	for _, s := range []string{token, password} {
		if strings.Contains(digests+verified+r.stdout+r.stderr, s) {
			t.Error("a secret reached the output")
		}
	}
}
