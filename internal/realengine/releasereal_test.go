//go:build realengine

package realengine

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/testkit/githubsim"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// releaseIdentity is the certificate identity of tesk-core's release workflow at tag.
func releaseIdentity(tag string) string {
	return "https://github.com/elixir-cloud-aai/tesk-core/.github/workflows/release.yml@refs/tags/" + tag
}

// compact is a JSON handoff as the workflow passes it between jobs (jq -c .).
func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(strings.TrimSpace(s))); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return b.String()
}

// cosignVerifyAll runs every cosign check on the image index at repo@index and on each
// of its platform images, with the given identity: each must pass.
func cosignVerifyAll(t *testing.T, repo, index, identity, rootFile string) {
	t.Helper()
	refs := []string{repo + "@" + index}
	for _, d := range platformDigests(t, refs[0]) {
		refs = append(refs, repo+"@"+d)
	}
	if len(refs) != 3 {
		t.Errorf("%s@%s lists %d platform images, want 2", repo, index, len(refs)-1)
	}
	for _, ref := range refs {
		for _, c := range cosignChecks {
			if _, stderr, err := cosignVerify(t, c.args, ref, "^"+regexpQuote(identity)+"$", publishtest.Issuer, rootFile); err != nil {
				t.Errorf("cosign %s of %s: %v\n%s", c.name, ref, err, stderr)
			}
		}
	}
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// The headline call for real: `release --tag v0.11.0` on the real engine publishes both
// images (gates, build, version check, push, scan by real Trivy, provenance, SBOM,
// signature, verify, tags, the GitHub release) against the GitHub simulator, the local
// registry and the test Sigstore; the identical call again writes nothing; v0.12.0 goes
// through the release workflow's four jobs, each its own call, with the JSON handoff;
// then publish-dev and the weekly scan of the released tag. Real cosign verifies every
// image each of them published, on the index and on every platform image.
func TestReleasePublishesForReal(t *testing.T) {
	t.Parallel()
	sim := githubsim.New(t)
	sim.AddToken(ghToken, githubsim.Token{PushAccess: true})
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	gitURL, shas := teskCoreGitTags(t, repo, "v0.11.0", "v0.12.0")
	api := publishGitHub(t, sim)
	sig := publishtest.StartSigstore(t)
	sigURL := serve(t, proxyTo(t, sig.URL))
	root, err := os.ReadFile(sig.TrustedRoot)
	if err != nil {
		t.Fatal(err)
	}
	rootFile := filepath.Join(t.TempDir(), "trusted_root.json")
	write(t, rootFile, string(root))

	const org = "shipyard-release"
	const password = "realengine0release0registry0SECRET"
	envFor := func(workflowRef, sub string) map[string]string {
		return map[string]string{"GHTOKEN": ghToken, "REGPASS": password, "OIDC": publishtest.Token(map[string]any{
			"iss": publishtest.Issuer, "sub": sub, "job_workflow_ref": workflowRef, "aud": "sigstore",
			"exp": time.Now().Add(time.Hour).Unix(),
		})}
	}
	releaseEnv := func(tag string) map[string]string {
		return envFor("elixir-cloud-aai/tesk-core/.github/workflows/release.yml@refs/tags/"+tag, "repo:elixir-cloud-aai/tesk-core:ref:refs/tags/"+tag)
	}
	ctor := append(ghArgs(api), "--registry", registryHost, "--org", org, "--registry-username", "bot",
		"--registry-password", "env://REGPASS", "--pin", "go="+baseImage, "--pin", "trivy="+trivyImage)
	signing := append(append([]string{}, ctor...), "with-sigstore", "--oidc-token", "env://OIDC",
		"--fulcio-url", sigURL, "--rekor-url", sigURL, "--trusted-root", rootFile,
		"--builder-id", "https://github.com/elixir-cloud-aai/tesk-core/actions", "--build-type", "https://shipyard.example/release/v1")
	local := "127.0.0.1:" + registryPort + "/" + org + "/tesk-core-"
	var outputs []string

	// 1. The release of v0.11.0, in one call.
	env := releaseEnv("v0.11.0")
	releaseArgs := append(append([]string{}, signing...), "release", "--tag", "v0.11.0", "--git-url", gitURL, "--format", "json")
	out := call(t, env, releaseArgs...)
	outputs = append(outputs, out)
	var rep struct {
		Images []struct {
			Repository, Digest string
			Tags               []string
			Scan               struct{ Passed bool }
		}
		Release struct{ Outcome string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Images) != 2 || rep.Release.Outcome != "created" {
		t.Fatalf("release printed (%v):\n%s", err, out)
	}
	released := map[string]string{}
	for _, img := range rep.Images {
		name := img.Repository[strings.LastIndex(img.Repository, "tesk-core-")+len("tesk-core-"):]
		released[name] = img.Digest
		if !img.Scan.Passed || strings.Join(img.Tags, ",") != "0.11.0,latest" {
			t.Errorf("release reported %+v", img)
		}
		for _, tag := range []string{"0.11.0", "latest"} {
			if d, stderr, err := runTool(t, craneEnv, "digest", local+name+":"+tag); err != nil || strings.TrimSpace(d) != img.Digest {
				t.Errorf("crane digest %s:%s = %q (%v), want %s\n%s", name, tag, d, err, img.Digest, stderr)
			}
		}
		cosignVerifyAll(t, local+name, img.Digest, releaseIdentity("v0.11.0"), rootFile)
		// What docs/tesk-core-images.md tells a user to run, on the version tag.
		if out, err := runDocsCosign(t, local+name+":0.11.0", rootFile); err != nil {
			t.Errorf("the docs' cosign commands on %s:0.11.0 failed: %v\n%s", name, err, out)
		}
	}
	var rels []githubsim.Release
	for _, r := range repo.Releases() {
		if r.TagName == "v0.11.0" {
			rels = append(rels, r)
		}
	}
	if len(rels) != 1 || !strings.Contains(rels[0].Body, "Brings signed images.") {
		t.Errorf("GitHub releases of v0.11.0: %+v", rels)
	}

	// 2. The identical call again writes nothing, to the registry or to GitHub.
	regBefore, ghBefore := len(writesUnder(org)), len(sim.Writes())
	again := cli(t, env, "", append([]string{"call"}, releaseArgs...)...)
	outputs = append(outputs, again.stdout, again.stderr)
	// A published version is released once: the gates refuse it before anything is built.
	if again.err == nil || !strings.Contains(again.stderr, "rule 7 (not-released)") {
		t.Errorf("the identical release again: want the not-released gate to refuse it:\n%s", again)
	}
	if w := writesUnder(org)[regBefore:]; len(w) != 0 {
		t.Errorf("the identical release wrote to the registry: %v", w)
	}
	for _, w := range sim.Writes()[ghBefore:] {
		if !strings.HasSuffix(w.Path, "/releases/generate-notes") {
			t.Errorf("the identical release wrote to GitHub: %s %s", w.Method, w.Path)
		}
	}

	// 3. v0.12.0 through the workflow's jobs, each its own call, the handoff as JSON.
	env = releaseEnv("v0.12.0")
	pushed := compact(t, call(t, env, append(append([]string{}, ctor...), "release-push", "--tag", "v0.12.0", "--git-url", gitURL)...))
	scanned := compact(t, call(t, nil, "--github-api", api, "--registry", registryHost, "--org", org, "--pin", "trivy="+trivyImage, "--pin", "go="+baseImage,
		"release-scan", "--handoff", pushed, "--git-url", gitURL))
	published := call(t, env, append(append([]string{}, signing...), "release-publish", "--handoff", scanned, "--pushed", pushed,
		"--git-url", gitURL, "--format", "json")...)
	rel := call(t, env, append(ghArgs(api), "--registry", registryHost, "--org", org, "--pin", "go="+baseImage, "release-publish-release", "--tag", "v0.12.0")...)
	outputs = append(outputs, pushed, scanned, published, rel)
	mustContain(t, "release-publish-release", rel, `"v0.12.0"`, "created")
	for _, name := range []string{"filer", "taskmaster"} {
		d, stderr, err := runTool(t, craneEnv, "digest", local+name+":0.12.0")
		if err != nil {
			t.Fatalf("crane digest %s:0.12.0: %v\n%s", name, err, stderr)
		}
		d = strings.TrimSpace(d)
		mustContain(t, "release-push's handoff", pushed, d)
		cosignVerifyAll(t, local+name, d, releaseIdentity("v0.12.0"), rootFile)
	}

	// 4. publish-dev of the dev head, and the weekly scan of the released tag.
	devEnv := envFor(publishtest.WorkflowRef, "repo:elixir-cloud-aai/tesk-core:ref:refs/heads/dev")
	// publish-dev builds from the checkout it is given (the dev head's tree: the same files).
	dev := call(t, devEnv, append(append([]string{"--source", imageProject(t)}, signing...), "publish-dev", "--sha", shas[1])...)
	outputs = append(outputs, dev)
	var devRes struct{ Digests map[string]string }
	if err := json.Unmarshal([]byte(dev), &devRes); err != nil || len(devRes.Digests) != 2 {
		t.Fatalf("publish-dev printed (%v):\n%s", err, dev)
	}
	for name, d := range devRes.Digests {
		cosignVerifyAll(t, local+name, d, publishtest.Identity, rootFile)
		// The docs' release identity refuses what the CI workflow signed on dev.
		if _, err := runDocsCosign(t, local+name+"@"+d, rootFile); err == nil {
			t.Errorf("the docs' cosign commands (the release workflow's identity) accepted publish-dev's %s", name)
		}
	}
	weekly := t.TempDir()
	call(t, nil, "--source", imageProject(t), "--pin", "trivy="+trivyImage, "--pin", "go="+baseImage, "scan-published", "--ref", registryHost+"/"+org+"/tesk-core-filer:0.11.0",
		"--fail", "export", "--path", weekly)
	for _, platform := range []string{"linux-amd64", "linux-arm64"} {
		for _, ext := range []string{".json", ".sarif"} {
			if _, err := os.Stat(filepath.Join(weekly, "filer-0.11.0-"+platform+ext)); err != nil {
				t.Errorf("scan-published wrote no filer-0.11.0-%s%s: %v", platform, ext, err)
			}
		}
	}
	amd64 := readTrivyJSON(t, filepath.Join(weekly, "filer-0.11.0-linux-amd64.json"))
	if !strings.Contains(amd64.ArtifactName, released["filer"][len("sha256:"):]) && !strings.Contains(amd64.ArtifactName, "@sha256:") {
		t.Errorf("scan-published scanned %q", amd64.ArtifactName)
	}
	if got := strings.Join(amd64.findings(), ","); !strings.Contains(got, vulnUnfixedCritical) {
		t.Errorf("the weekly scan of linux/amd64 found %q, want the unfixed CRITICAL", got)
	}
	for _, s := range []string{ghToken, password, env["OIDC"], devEnv["OIDC"]} {
		if strings.Contains(strings.Join(outputs, "\n"), s) {
			t.Error("a secret reached an output")
		}
	}
}
