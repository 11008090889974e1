//go:build realengine

package realengine

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// The tools that check, from outside, what the suite published: built from the Go module
// proxy by .ci/realengine-tools.
const (
	cosignEnv = "SHIPYARD_COSIGN"
	ghCLIEnv  = "SHIPYARD_GH"
	craneEnv  = "SHIPYARD_CRANE"
	orasEnv   = "SHIPYARD_ORAS"
)

// runTool runs the tool an environment variable names, with a home of its own (cosign
// keeps TUF state there), and returns what it printed.
func runTool(t *testing.T, env string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	bin := os.Getenv(env)
	if bin == "" {
		t.Fatalf("%s is unset: .ci/realengine-tools builds it", env)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	t.Logf("%s %s: %v", filepath.Base(bin), strings.Join(args, " "), err)
	return o.String(), e.String(), err
}

// platformDigests reads an image index with crane and returns its platform images'
// digests by platform.
func platformDigests(t *testing.T, ref string) map[string]string {
	t.Helper()
	out, stderr, err := runTool(t, craneEnv, "manifest", ref)
	if err != nil {
		t.Fatalf("crane manifest %s: %v\n%s", ref, err, stderr)
	}
	var idx struct {
		MediaType string
		Manifests []struct {
			Digest   string
			Platform struct{ OS, Architecture string }
		}
	}
	if err := json.Unmarshal([]byte(out), &idx); err != nil || len(idx.Manifests) == 0 {
		t.Fatalf("crane manifest %s: not an index (%v):\n%s", ref, err, out)
	}
	got := map[string]string{}
	for _, m := range idx.Manifests {
		got[m.Platform.OS+"/"+m.Platform.Architecture] = m.Digest
	}
	return got
}

// cosignChecks are the three kinds of evidence on every published digest, as cosign v2.6
// checks them: the signature (the bundle of cosign's own sign predicate, so a provenance
// bundle cannot stand in for it), the SLSA provenance and the CycloneDX SBOM.
var cosignChecks = []struct {
	name string
	args []string
}{
	{"signature", []string{"verify-attestation", "--type", "https://sigstore.dev/cosign/sign/v1"}},
	{"any bundle", []string{"verify"}},
	{"provenance", []string{"verify-attestation", "--type", "slsaprovenance1"}},
	{"sbom", []string{"verify-attestation", "--type", "cyclonedx"}},
}

// cosignVerify runs one check of cosignChecks on ref with the given identity (an anchored
// regular expression) against the test Sigstore's trusted root, offline.
func cosignVerify(t *testing.T, check []string, ref, identity, issuer, trustedRoot string) (string, string, error) {
	t.Helper()
	args := append(append([]string{}, check...), "--new-bundle-format", "--offline", "--trusted-root", trustedRoot,
		"--certificate-identity-regexp", identity, "--certificate-oidc-issuer", issuer, ref)
	return runTool(t, cosignEnv, args...)
}

// statementPredicates decodes what cosign verify-attestation prints: one DSSE envelope
// per line, whose payload is the in-toto statement.
func statementPredicates(t *testing.T, out string) []map[string]any {
	t.Helper()
	var preds []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var env struct{ Payload string }
		if err := json.Unmarshal([]byte(line), &env); err != nil {
			t.Fatalf("cosign printed %q: %v", line, err)
		}
		raw, err := base64.StdEncoding.DecodeString(env.Payload)
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			PredicateType string
			Predicate     map[string]any
		}
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatal(err)
		}
		preds = append(preds, st.Predicate)
	}
	return preds
}

// publish-dev on the real engine, checked only by other people's tools: real Trivy scans
// the pushed digests and writes each platform image's SBOM; cosign v2.6.5 verifies the
// signature, the provenance and the SBOM on each index and platform image with the
// signer's identity, and refuses another identity and an image never signed; crane and
// oras show the index and its referrers.
func TestPublishDevVerifiedByCosign(t *testing.T) {
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
	// The claims GitHub gives a job of the dev workflow that the certificate's GitHub
	// extensions are made of, which gh attestation verify checks (--owner, below).
	token := publishtest.Token(map[string]any{
		"iss": publishtest.Issuer, "sub": "repo:elixir-cloud-aai/tesk-core:ref:refs/heads/dev",
		"job_workflow_ref": publishtest.WorkflowRef, "workflow_ref": publishtest.WorkflowRef, "aud": "sigstore", "exp": time.Now().Add(time.Hour).Unix(),
		"repository": "elixir-cloud-aai/tesk-core", "repository_owner": "elixir-cloud-aai", "repository_id": "7012345", "repository_owner_id": "7000001",
		"ref": "refs/heads/dev", "sha": strings.Repeat("c", 40), "event_name": "push", "runner_environment": "github-hosted",
	})
	const password = "realengine0registry0SECRET"
	env := map[string]string{"OIDC": token, "REGPASS": password, "GHTOKEN": ghToken}
	const org = "shipyard-cosign"
	// publish-dev creates dev only for a commit on the dev branch, which it asks GitHub
	// right before tagging: the simulator's dev is the published commit.
	sha := strings.Repeat("c", 40)
	sim := githubsim.New(t, githubsim.WithAnonymousReads())
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	repo.ImportCommit(sha, "feat: images", nil, map[string]string{"README.md": "tesk-core\n"})
	repo.SetBranch("dev", sha)
	// The workflow's token, which may write the repository's attestation store.
	sim.AddToken(ghToken, githubsim.Token{})
	api := publishGitHubStable(t, sim)
	args := []string{"--github-api", api, "--github-token", "env://GHTOKEN", "--source", src, "--registry", registryHost, "--org", org,
		"--registry-username", "bot", "--registry-password", "env://REGPASS", "--pin", "go=" + baseImage, "--pin", "trivy=" + trivyImage,
		"with-sigstore", "--oidc-token", "env://OIDC", "--fulcio-url", sigURL, "--rekor-url", sigURL, "--trusted-root", rootFile,
		"--builder-id", "https://shipyard.example/realengine", "--build-type", "https://shipyard.example/buildtypes/realengine/v1",
		"publish-dev", "--sha", sha}
	out := call(t, env, args...)
	var res struct{ Digests map[string]string }
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Digests) != 2 {
		t.Fatalf("publish-dev printed %q (%v)", out, err)
	}
	for _, s := range []string{token, password, ghToken} {
		if strings.Contains(out, s) {
			t.Error("a secret reached the output")
		}
	}
	// Each index's and platform image's provenance and SBOM went to GitHub's attestation
	// store too; store-attestations, run on the same digests as the dev workflow runs it
	// after sign, verifies them and finds every bundle there already.
	if n := len(repo.Attestations()); n != 2*3*len(res.Digests) {
		t.Errorf("%d attestations stored, want the provenance and SBOM of each index and platform image (%d)", n, 2*3*len(res.Digests))
	}
	handoff := map[string]string{}
	for img, d := range res.Digests {
		handoff[img] = registryHost + "/" + org + "/tesk-core-" + img + "@" + d
	}
	digests, _ := json.Marshal(handoff)
	stored := call(t, env, "--github-api", api, "--github-token", "env://GHTOKEN", "--registry", registryHost, "--org", org,
		"--pin", "go="+baseImage, "store-attestations", "--digests", string(digests), "--identity", publishtest.IdentityRegexp,
		"--issuer", publishtest.Issuer, "--trusted-root", rootFile)
	var report struct{ Uploaded, Present int }
	if err := json.Unmarshal([]byte(stored), &report); err != nil || report.Uploaded != 0 || report.Present != len(repo.Attestations()) {
		t.Errorf("store-attestations printed %q (%v), want every bundle found present", stored, err)
	}
	ghVerifiesTheStore(t, repo.Attestations(), "127.0.0.1:"+registryPort+"/"+org+"/tesk-core-filer@"+res.Digests["filer"], rootFile)

	local := "127.0.0.1:" + registryPort + "/" + org + "/tesk-core-"
	for img, index := range res.Digests {
		// The commit is dev's head on GitHub, so both tags were written, on the index.
		for _, tag := range []string{"dev", "sha-" + sha} {
			if d, stderr, err := runTool(t, craneEnv, "digest", local+img+":"+tag); err != nil || strings.TrimSpace(d) != index {
				t.Errorf("crane digest %s:%s = %q (%v), want the pushed index %s\n%s", img, tag, d, err, index, stderr)
			}
		}
		refs := map[string]string{"index": local + img + "@" + index}
		for platform, d := range platformDigests(t, refs["index"]) {
			refs[platform] = local + img + "@" + d
		}
		if len(refs) != 3 {
			t.Fatalf("%s: the index lists %v, want linux/amd64 and linux/arm64", img, refs)
		}
		for what, ref := range refs {
			for _, c := range cosignChecks {
				stdout, stderr, err := cosignVerify(t, c.args, ref, publishtest.IdentityRegexp, publishtest.Issuer, rootFile)
				if err != nil {
					t.Errorf("%s %s: cosign %s: %v\n%s", img, what, c.name, err, stderr)
					continue
				}
				if c.name == "sbom" && what == "linux/amd64" {
					checkSBOMPackages(t, img, statementPredicates(t, stdout))
				}
			}
		}
		// What the docs say of cosign: download sbom reads only the old .sbom attachment, so
		// it finds none of the attested SBOMs, for a platform or not.
		if out, _, err := runTool(t, cosignEnv, "download", "sbom", "--platform", "linux/arm64", refs["index"]); err == nil && strings.TrimSpace(out) != "" {
			t.Errorf("%s: cosign download sbom --platform linux/arm64 found an SBOM; the docs say it finds none:\n%.300s", img, out)
		}
		// Referrers: three bundles on the index, as oras lists them, each a manifest crane
		// reads whose subject is the index.
		stdout, stderr, err := runTool(t, orasEnv, "discover", "--plain-http", "--format", "json", refs["index"])
		if err != nil {
			t.Fatalf("oras discover: %v\n%s", err, stderr)
		}
		var found struct {
			Referrers []struct{ Digest, ArtifactType string } `json:"referrers"`
		}
		if err := json.Unmarshal([]byte(stdout), &found); err != nil {
			t.Fatalf("oras discover printed %q: %v", stdout, err)
		}
		if len(found.Referrers) != 3 {
			t.Errorf("%s: oras discover lists %d referrers of the index, want 3 (signature, provenance, SBOM):\n%s", img, len(found.Referrers), stdout)
		}
		for _, r := range found.Referrers {
			m, stderr, err := runTool(t, craneEnv, "manifest", local+img+"@"+r.Digest)
			if err != nil {
				t.Errorf("crane manifest of referrer %s: %v\n%s", r.Digest, err, stderr)
				continue
			}
			mustContain(t, "the referrer's manifest", m, `"subject"`, index, "application/vnd.dev.sigstore.bundle")
		}
	}

	// The docs' commands check the release workflow's identity: they refuse what the CI
	// workflow signed on dev.
	for img, index := range res.Digests {
		if _, err := runDocsCosign(t, local+img+"@"+index, rootFile); err == nil {
			t.Errorf("the docs' cosign commands (the release workflow's identity) accepted publish-dev's %s", img)
		}
	}

	// The -keep folder of the filer image, its README's commands run as printed: every
	// check passes on the index and each platform image, the SBOM lists the packages, and
	// cosign tree shows the referrers.
	kept := runKeptReadme(t, local+"filer", res.Digests["filer"], rootFile)
	if strings.Contains(kept, "FAILED") {
		t.Errorf("a check of the README failed:\n%s", kept)
	}
	mustContain(t, "the README's commands", kept, "\ntar\n", "\nbash\n")
	if n := strings.Count(kept, "artifacts via OCI referrer"); n != 3 {
		t.Errorf("cosign tree listed %d referrers of the index, want 3", n)
	}

	// Another identity, and an image nobody signed (the suite's base image), fail every check.
	other := "^" + regexp.QuoteMeta("https://github.com/someone/else/.github/workflows/x.yml@refs/heads/main") + "$"
	filer := local + "filer@" + res.Digests["filer"]
	unsigned := strings.Replace(baseImage, registryHost, "127.0.0.1:"+registryPort, 1)
	for _, c := range cosignChecks {
		if _, _, err := cosignVerify(t, c.args, filer, other, publishtest.Issuer, rootFile); err == nil {
			t.Errorf("cosign %s accepted another identity", c.name)
		}
		if _, _, err := cosignVerify(t, c.args, filer, publishtest.IdentityRegexp, "https://issuer.example", rootFile); err == nil {
			t.Errorf("cosign %s accepted another issuer", c.name)
		}
		if _, _, err := cosignVerify(t, c.args, unsigned, publishtest.IdentityRegexp, publishtest.Issuer, rootFile); err == nil {
			t.Errorf("cosign %s accepted an image never signed", c.name)
		}
	}
}

// checkSBOMPackages: the linux/amd64 image's attested SBOM is real Trivy's CycloneDX of
// the image, listing the Debian packages the base image really holds.
func checkSBOMPackages(t *testing.T, img string, preds []map[string]any) {
	t.Helper()
	if len(preds) == 0 {
		t.Fatalf("%s: no SBOM statement", img)
	}
	b, err := json.Marshal(preds[0])
	if err != nil {
		t.Fatal(err)
	}
	var bom struct {
		BOMFormat  string `json:"bomFormat"`
		Metadata   struct{ Tools any }
		Components []struct {
			Type, Name, Version, Purl string
		}
	}
	if err := json.Unmarshal(b, &bom); err != nil || bom.BOMFormat != "CycloneDX" {
		t.Fatalf("%s: the SBOM is not CycloneDX (%v): %.300s", img, err, b)
	}
	names := map[string]string{}
	for _, c := range bom.Components {
		names[c.Name] = c.Purl
	}
	for _, pkg := range []string{"tar", "gzip", "bash", "sed", "git"} {
		if p := names[pkg]; !strings.HasPrefix(p, "pkg:deb/debian/"+pkg+"@") {
			t.Errorf("%s: the SBOM lists %s as %q, want a pkg:deb/debian purl (%d components)", img, pkg, p, len(bom.Components))
		}
	}
	mustContain(t, "the SBOM's tools", string(b), "trivy")
}

// readmeBlocks are the command blocks of a -keep README: runs of lines indented by two
// spaces after the prose that introduces them, in order. Blocks that need the internet (a
// copy to Docker Hub) are returned apart, to be named as not run.
func readmeBlocks(readme string) (run, offline []string) {
	_, body, _ := strings.Cut(readme, "Copy the layout")
	var cur []string
	flush := func() {
		if len(cur) == 0 {
			return
		}
		block := strings.Join(cur, "\n")
		if strings.Contains(block, "docker.io/") {
			offline = append(offline, block)
		} else {
			run = append(run, block)
		}
		cur = nil
	}
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "  ") && strings.TrimSpace(line) != "" {
			cur = append(cur, strings.TrimPrefix(line, "  "))
			continue
		}
		flush()
	}
	flush()
	return run, offline
}

// runKeptReadme keeps the published image as the -keep folder does and runs the commands
// of its README exactly as printed, in the folder, with crane, oras, cosign and jq on PATH,
// in a network namespace of their own (so 127.0.0.1:5000 is free for the README's
// registry, as on a person's machine). Returns what the commands printed.
func runKeptReadme(t *testing.T, repo, digest, trustedRoot string) string {
	t.Helper()
	dir := t.TempDir()
	if err := publishtest.KeepSigned(dir, repo, digest, trustedRoot); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.txt"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, skipped := readmeBlocks(string(readme))
	for _, b := range skipped {
		t.Logf("not run (needs Docker Hub and an engine that reaches it):\n%s", b)
	}
	if len(blocks) < 3 {
		t.Fatalf("the README has %d command blocks:\n%s", len(blocks), readme)
	}
	bin := t.TempDir()
	for _, env := range []string{craneEnv, orasEnv, cosignEnv} {
		p := os.Getenv(env)
		if p == "" {
			t.Fatalf("%s is unset: .ci/realengine-tools builds it", env)
		}
		if err := os.Symlink(p, filepath.Join(bin, filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
	}
	script := "ip link set lo up\ntrap 'kill $(jobs -p) 2>/dev/null' EXIT\n" + strings.Join(blocks, "\n")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "--net", "--fork", "--kill-child", "bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	t.Logf("the README's commands, run as printed:\n%s\n%s", script, out)
	if err != nil {
		t.Fatalf("the README's commands failed: %v", err)
	}
	return string(out)
}

// ghVerifiesTheStore runs the real GitHub CLI on what GitHub's attestation store holds (its
// bundles, as gh reads them with --bundle) for the image ref, as a user of the repository
// checks it: it passes for the owner and the dev workflow that signed, on the image and on
// its manifest as a file, and fails for another owner, another signer workflow and a
// subject that is not the image (its manifest with one byte more).
func ghVerifiesTheStore(t *testing.T, stored []json.RawMessage, ref, trustedRoot string) {
	t.Helper()
	dir := t.TempDir()
	var lines []string
	for _, b := range stored {
		var line bytes.Buffer
		if err := json.Compact(&line, b); err != nil {
			t.Fatalf("the store holds %.80s…: %v", b, err)
		}
		lines = append(lines, line.String())
	}
	bundles := filepath.Join(dir, "store.jsonl")
	write(t, bundles, strings.Join(lines, "\n")+"\n")
	// gh reads a custom trusted root as JSON lines, one root a line.
	root, err := os.ReadFile(trustedRoot)
	var rootLine bytes.Buffer
	if err == nil {
		err = json.Compact(&rootLine, root)
	}
	if err != nil {
		t.Fatalf("the trusted root %s: %v", trustedRoot, err)
	}
	trustedRoot = filepath.Join(dir, "trusted_root.jsonl")
	write(t, trustedRoot, rootLine.String()+"\n")
	manifest, stderr, err := runTool(t, craneEnv, "manifest", ref)
	if err != nil {
		t.Fatalf("crane manifest %s: %v\n%s", ref, err, stderr)
	}
	manifestFile, tampered := filepath.Join(dir, "manifest.json"), filepath.Join(dir, "tampered.json")
	write(t, manifestFile, manifest)
	write(t, tampered, manifest+"\n")
	const owner, signer = "elixir-cloud-aai", "elixir-cloud-aai/tesk-core/.github/workflows/ci.yml"
	for _, c := range []struct {
		name, artifact string
		args           []string
		pass           bool
	}{
		{"the owner and the dev workflow", "oci://" + ref, []string{"--owner", owner, "--signer-workflow", signer}, true},
		{"the manifest as a file", manifestFile, []string{"--owner", owner, "--signer-workflow", signer}, true},
		{"the repository and the SBOM", "oci://" + ref, []string{"--repo", "elixir-cloud-aai/tesk-core", "--predicate-type", "https://cyclonedx.org/bom"}, true},
		{"another owner", "oci://" + ref, []string{"--owner", "someone-else"}, false},
		{"another signer workflow", "oci://" + ref, []string{"--owner", owner, "--signer-workflow", "elixir-cloud-aai/tesk-core/.github/workflows/release.yml"}, false},
		{"a tampered subject", tampered, []string{"--owner", owner, "--signer-workflow", signer}, false},
	} {
		args := append([]string{"attestation", "verify", c.artifact, "--bundle", bundles, "--custom-trusted-root", trustedRoot, "--format", "json"}, c.args...)
		stdout, stderr, err := runTool(t, ghCLIEnv, args...)
		if (err == nil) != c.pass {
			t.Errorf("gh attestation verify, %s: %v, want it to pass %v:\n%.2000s%.2000s", c.name, err, c.pass, stdout, stderr)
			continue
		}
		if _, exit := err.(*exec.ExitError); err != nil && !exit {
			t.Errorf("gh attestation verify, %s: did not run to a verdict: %v\n%s", c.name, err, stderr)
		}
		// A refusal is Sigstore's verdict on this bundle, not a failure to read one.
		if err != nil && !strings.Contains(stderr, `verifying with issuer "sigstore.dev"`) {
			t.Errorf("gh attestation verify, %s: refused for another reason than the verification:\n%.2000s", c.name, stderr)
		}
	}
}
