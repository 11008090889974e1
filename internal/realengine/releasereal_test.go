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

	"dagger/shipyard/internal/demoworld/githubsim"
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

// releaseWorld is what a release for real publishes against: a tesk-core repository with
// one release commit per tag in the GitHub simulator and over git, a test Sigstore served
// in the engine's network, and the arguments of a release that publishes to org in the
// local registry (the constructor's, then with-sigstore's).
type releaseWorld struct {
	sim           *githubsim.Server
	repo          *githubsim.Repo
	api, gitURL   string
	shas          []string
	rootFile      string
	org, local    string
	ctor, signing []string
}

// releasePassword is the registry password of every release for real.
const releasePassword = "realengine0release0registry0SECRET"

// newReleaseWorld sets up a releaseWorld of its own for one test, so that tests that
// publish can run in parallel without seeing each other's releases, tags or images.
func newReleaseWorld(t *testing.T, org string, tags ...string) *releaseWorld {
	t.Helper()
	w := &releaseWorld{sim: githubsim.New(t), org: org, local: "127.0.0.1:" + registryPort + "/" + org + "/tesk-core-"}
	w.sim.AddToken(ghToken, githubsim.Token{PushAccess: true})
	w.repo = w.sim.AddRepo("elixir-cloud-aai", "tesk-core")
	w.gitURL, w.shas = teskCoreGitTags(t, w.repo, tags...)
	w.api = publishGitHubStable(t, w.sim)
	sig := publishtest.StartSigstore(t)
	sigURL := serve(t, proxyTo(t, sig.URL))
	root, err := os.ReadFile(sig.TrustedRoot)
	if err != nil {
		t.Fatal(err)
	}
	w.rootFile = filepath.Join(t.TempDir(), "trusted_root.json")
	write(t, w.rootFile, string(root))
	w.ctor = append(ghArgs(w.api), "--registry", registryHost, "--org", org, "--registry-username", "bot",
		"--registry-password", "env://REGPASS", "--pin", "go="+baseImage, "--pin", "trivy="+trivyImage)
	w.signing = append(append([]string{}, w.ctor...), "with-sigstore", "--oidc-token", "env://OIDC",
		"--fulcio-url", sigURL, "--rekor-url", sigURL, "--trusted-root", w.rootFile,
		"--builder-id", "https://github.com/elixir-cloud-aai/tesk-core/actions", "--build-type", "https://shipyard.example/release/v1")
	return w
}

// releaseEnv is the environment of the release workflow's run for tag: the tokens and the
// registry password, passed as env://NAME.
func releaseEnv(tag string) map[string]string {
	return map[string]string{"GHTOKEN": ghToken, "REGPASS": releasePassword, "OIDC": publishtest.Token(map[string]any{
		"iss": publishtest.Issuer, "sub": "repo:elixir-cloud-aai/tesk-core:ref:refs/tags/" + tag,
		"job_workflow_ref": "elixir-cloud-aai/tesk-core/.github/workflows/release.yml@refs/tags/" + tag, "aud": "sigstore",
		"exp": time.Now().Add(time.Hour).Unix(),
	})}
}

// noSecretIn fails t if a secret of env, or the GitHub token, reached one of outputs.
func noSecretIn(t *testing.T, env map[string]string, outputs []string) {
	t.Helper()
	all := strings.Join(outputs, "\n")
	for _, s := range []string{ghToken, releasePassword, env["OIDC"]} {
		if s != "" && strings.Contains(all, s) {
			t.Error("a secret reached an output")
		}
	}
}

// The headline call for real: `release --tag v0.11.0` on the real engine publishes both
// images (gates, build, version check, push, scan by real Trivy, provenance, SBOM,
// signature, verify, tags, the GitHub release) against the GitHub simulator, the local
// registry and the test Sigstore; the identical call again writes nothing; then the weekly
// scan of the released tag. Real cosign verifies every image the release published, on the
// index and on every platform image. (The release workflow's jobs are
// TestReleaseWorkflowJobsForReal, publish-dev TestPublishDevVerifiedByCosign: each
// publishes to a world of its own, so the three run in parallel.)
func TestReleasePublishesForReal(t *testing.T) {
	t.Parallel()
	w := newReleaseWorld(t, "shipyard-release", "v0.11.0", "v0.12.0")
	var outputs []string

	// 1. The release of v0.11.0, in one call.
	env := releaseEnv("v0.11.0")
	releaseArgs := append(append([]string{}, w.signing...), "release", "--tag", "v0.11.0", "--git-url", w.gitURL, "--format", "json")
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
			if d, stderr, err := runTool(t, craneEnv, "digest", w.local+name+":"+tag); err != nil || strings.TrimSpace(d) != img.Digest {
				t.Errorf("crane digest %s:%s = %q (%v), want %s\n%s", name, tag, d, err, img.Digest, stderr)
			}
		}
		cosignVerifyAll(t, w.local+name, img.Digest, releaseIdentity("v0.11.0"), w.rootFile)
		// What docs/tesk-core-images.md tells a user to run, on the version tag.
		if out, err := runDocsCosign(t, w.local+name+":0.11.0", w.rootFile); err != nil {
			t.Errorf("the docs' cosign commands on %s:0.11.0 failed: %v\n%s", name, err, out)
		}
	}
	var rels []githubsim.Release
	for _, r := range w.repo.Releases() {
		if r.TagName == "v0.11.0" {
			rels = append(rels, r)
		}
	}
	if len(rels) != 1 || !strings.Contains(rels[0].Body, "Brings signed images.") {
		t.Errorf("GitHub releases of v0.11.0: %+v", rels)
	}

	// 2. The identical call again writes nothing, to the registry or to GitHub.
	regBefore, ghBefore := len(writesUnder(w.org)), len(w.sim.Writes())
	again := cli(t, env, "", append([]string{"call"}, releaseArgs...)...)
	outputs = append(outputs, again.stdout, again.stderr)
	// A published version is released once: the gates refuse it before anything is built.
	if again.err == nil || !strings.Contains(again.stderr, "rule 7 (not-released)") {
		t.Errorf("the identical release again: want the not-released gate to refuse it:\n%s", again)
	}
	if wr := writesUnder(w.org)[regBefore:]; len(wr) != 0 {
		t.Errorf("the identical release wrote to the registry: %v", wr)
	}
	for _, wr := range w.sim.Writes()[ghBefore:] {
		if !strings.HasSuffix(wr.Path, "/releases/generate-notes") {
			t.Errorf("the identical release wrote to GitHub: %s %s", wr.Method, wr.Path)
		}
	}

	// 3. The weekly scan of the released tag.
	weekly := t.TempDir()
	call(t, nil, "--source", imageProject(t), "--pin", "trivy="+trivyImage, "--pin", "go="+baseImage, "scan-published", "--ref", registryHost+"/"+w.org+"/tesk-core-filer:0.11.0",
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
	noSecretIn(t, env, outputs)
}

// The release workflow for real: v0.12.0 through its four jobs, each its own call, the
// handoff passed on as JSON (jq -c .) as the workflow passes it; real cosign verifies
// every image it published.
func TestReleaseWorkflowJobsForReal(t *testing.T) {
	t.Parallel()
	w := newReleaseWorld(t, "shipyard-release-jobs", "v0.11.0", "v0.12.0")
	env := releaseEnv("v0.12.0")
	pushed := compact(t, call(t, env, append(append([]string{}, w.ctor...), "release-push", "--tag", "v0.12.0", "--git-url", w.gitURL)...))
	scanned := compact(t, call(t, nil, "--github-api", w.api, "--registry", registryHost, "--org", w.org, "--pin", "trivy="+trivyImage, "--pin", "go="+baseImage,
		"release-scan", "--handoff", pushed, "--git-url", w.gitURL))
	published := call(t, env, append(append([]string{}, w.signing...), "release-publish", "--handoff", scanned, "--pushed", pushed,
		"--git-url", w.gitURL, "--format", "json")...)
	rel := call(t, env, append(ghArgs(w.api), "--registry", registryHost, "--org", w.org, "--pin", "go="+baseImage, "release-publish-release", "--tag", "v0.12.0")...)
	mustContain(t, "release-publish-release", rel, `"v0.12.0"`, "created")
	for _, name := range []string{"filer", "taskmaster"} {
		d, stderr, err := runTool(t, craneEnv, "digest", w.local+name+":0.12.0")
		if err != nil {
			t.Fatalf("crane digest %s:0.12.0: %v\n%s", name, err, stderr)
		}
		d = strings.TrimSpace(d)
		mustContain(t, "release-push's handoff", pushed, d)
		cosignVerifyAll(t, w.local+name, d, releaseIdentity("v0.12.0"), w.rootFile)
	}
	noSecretIn(t, env, []string{pushed, scanned, published, rel})
}
