package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/dagger"
	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/teskrepo"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// TestMain builds the supplychain command and the test Sigstore once for the module's
// tests, and removes them at the end.
func TestMain(m *testing.M) { os.Exit(publishtest.Main(m)) }

// releaseWorld is tesk-core on the GitHub simulator, a real registry and the test Sigstore,
// with the module's functions connected to an engine double that serves the tagged trees.
type releaseWorld struct {
	m    *Shipyard
	e    *engine.Engine
	repo *teskrepo.Repo
	pub  *publishtest.World
	oidc *dagger.Secret
	root *dagger.File
}

func newReleaseWorld(t *testing.T) *releaseWorld {
	t.Helper()
	m, e := newModule(t, nil, engine.AllowSecretPlaintext())
	e.ExpectExecs(publishExecs...)
	dag := m.engine()
	w := &releaseWorld{m: m, e: e, repo: teskrepo.New(t, teskrepo.Options{}), pub: publishtest.NewWorld(t)}
	installImages(t, w.pub, e)
	teskrepo.ReportBuiltVersion(e)
	cleanScans(e)
	m.Repo = teskrepo.FullName
	m.GithubAPI = w.repo.Sim.URL + "/"
	m.GithubToken = dag.SetSecret("github-token", teskrepo.Token)
	w.pub.SetSecret("github-token", teskrepo.Token)
	m.Registry, m.Org = w.pub.Registry.Host, "elixircloud"
	m.RegistryUsername = w.pub.Username
	m.RegistryPassword = dag.SetSecret(publishtest.RegistryPasswordSecret, w.pub.Password)
	w.oidc = dag.SetSecret(publishtest.OIDCTokenSecret, w.pub.Token)
	w.root = dag.Host().File(w.pub.Sigstore.TrustedRoot)
	m.clients.supplychain = dag.Host().Directory(publishtest.SupplychainSource(t))
	return w
}

// tag prepares and tags a release and teaches the engine its tree.
func (w *releaseWorld) tag(t *testing.T, tag string) {
	t.Helper()
	w.repo.Release(tag)
	w.repo.ServeTree(w.e, tag)
}

func (w *releaseWorld) release(ctx context.Context, tag string, dryRun bool, format string) (string, error) {
	return w.signing(w.oidc, nil, nil).Release(ctx, tag, dryRun, format, "ci.yml", "", teskrepo.GitURL)
}

// signing chains with-sigstore with the test Sigstore, its trusted root, a builder outside
// GitHub Actions, and the given token or token endpoint.
func (w *releaseWorld) signing(oidc, requestURL, requestToken *dagger.Secret) *Shipyard {
	return w.m.WithSigstore(oidc, requestURL, requestToken, w.pub.Sigstore.URL, w.pub.Sigstore.URL, w.root, nil,
		"https://github.com/elixir-cloud-aai/tesk-core/actions", "https://shipyard.example/release/v1", "")
}

// noSecrets fails when a token or password reached an output, an error or an exec.
func (w *releaseWorld) noSecrets(t *testing.T, texts ...string) {
	t.Helper()
	all := strings.Join(texts, "\n") + w.e.Graph().String()
	for _, s := range append(w.pub.SecretValues(), teskrepo.Token) {
		if strings.Contains(all, s) {
			t.Fatal("a secret value reached an output, an error or the recorded graph")
		}
	}
}

func TestReleaseThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newReleaseWorld(t)
	w.tag(t, "v0.11.0")

	dry, err := w.release(ctx, "v0.11.0", true, "text")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dry, "dry run: nothing was pushed") || !strings.Contains(dry, "/elixircloud/tesk-core-filer@sha256:") {
		t.Errorf("dry run:\n%s", dry)
	}
	if len(w.pub.Registry.Writes()) != 0 || len(w.repo.Releases()) != 1 {
		t.Fatal("the dry run published something")
	}

	out, err := w.release(ctx, "v0.11.0", false, "json")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Tag    string `json:"tag"`
		Images []struct {
			Repository  string   `json:"repository"`
			Digest      string   `json:"digest"`
			Tags        []string `json:"tags"`
			Signature   string   `json:"signature"`
			Attestation string   `json:"attestation"`
			Scan        struct {
				Passed bool `json:"passed"`
			} `json:"scan"`
		} `json:"images"`
		Release struct {
			URL        string `json:"url"`
			Prerelease bool   `json:"prerelease"`
			MakeLatest string `json:"make_latest"`
			Outcome    string `json:"outcome"`
		} `json:"release"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.Images) != 2 || rep.Release.Outcome != "created" || !rep.Release.Prerelease || rep.Release.MakeLatest != "false" {
		t.Fatalf("report %+v", rep)
	}
	for _, img := range rep.Images {
		tags := w.pub.Registry.Tags(t, img.Repository)
		if strings.Join(img.Tags, ",") != "0.11.0,latest" || tags["0.11.0"] != img.Digest || tags["latest"] != img.Digest ||
			!img.Scan.Passed || !strings.HasPrefix(img.Signature, img.Repository+"@sha256:") || !strings.HasPrefix(img.Attestation, img.Repository+"@sha256:") {
			t.Errorf("image %+v, registry %v", img, tags)
		}
		if !strings.Contains(dry, img.Repository+"@"+img.Digest) {
			t.Errorf("the dry run did not announce %s@%s", img.Repository, img.Digest)
		}
	}
	if rels := w.repo.ReleasesOf("v0.11.0"); len(rels) != 1 || !strings.HasPrefix(rels[0].Body, teskrepo.Notes("0.11.0")) {
		t.Errorf("releases %+v", rels)
	}
	// A second full release stops at its gate; the GitHub step alone converges.
	_, gateErr := w.release(ctx, "v0.11.0", false, "text")
	if gateErr == nil || !strings.Contains(gateErr.Error(), "rule 7 (not-released)") {
		t.Fatalf("second release: %v", gateErr)
	}
	again, err := w.m.ReleasePublishRelease(ctx, "v0.11.0", "json", "ci.yml")
	if err != nil || !strings.Contains(again, `"outcome": "kept"`) {
		t.Errorf("publish-release again: %s, %v", again, err)
	}
	w.noSecrets(t, dry, out, again, gateErr.Error())
}

// A release outside GitHub Actions whose with-sigstore names no builder is refused before
// anything is built or pushed, not at attest with the digests already in the registry.
func TestReleaseChecksTheProvenanceInputsBeforeItPushes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newReleaseWorld(t)
	w.tag(t, "v0.11.0")
	noBuilder := w.m.WithSigstore(w.oidc, nil, nil, w.pub.Sigstore.URL, w.pub.Sigstore.URL, w.root, nil, "", "", "")
	_, err := noBuilder.Release(ctx, "v0.11.0", false, "text", "ci.yml", "", teskrepo.GitURL)
	if !errors.Is(err, publish.ErrNoBuilder) {
		t.Fatalf("release without a builder: %v", err)
	}
	if writes := w.pub.Registry.Writes(); len(writes) != 0 || len(w.repo.Releases()) != 1 {
		t.Errorf("written before the inputs were checked: registry %v, %d releases", writes, len(w.repo.Releases()))
	}
	// A dry run signs nothing and needs no builder.
	if _, err := noBuilder.Release(ctx, "v0.11.0", true, "text", "ci.yml", "", teskrepo.GitURL); err != nil {
		t.Errorf("dry run without a builder: %v", err)
	}
}

func TestReleaseJobsThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newReleaseWorld(t)
	w.tag(t, "v0.11.0rc1")

	pushed, err := w.m.ReleasePush(ctx, "v0.11.0rc1", "ci.yml", "", teskrepo.GitURL)
	if err != nil {
		t.Fatal(err)
	}
	scanned, err := w.m.ReleaseScan(ctx, pushed, teskrepo.GitURL)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(scanned, `"passed":true`) {
		t.Fatalf("scan handoff %s", scanned)
	}
	// The scan job's handoff must carry what the push job pushed.
	if _, err := w.signing(w.oidc, nil, nil).ReleasePublish(ctx, scanned, "{}", "json", "ci.yml", teskrepo.GitURL); err == nil || !strings.Contains(err.Error(), "--pushed") {
		t.Errorf("publish without the push job's output: %v", err)
	}
	i := strings.Index(pushed, `"digest":"sha256:`) + len(`"digest":"sha256:`)
	flipped := "0"
	if pushed[i] == '0' {
		flipped = "1"
	}
	otherDigest := pushed[:i] + flipped + pushed[i+1:]
	if _, err := w.signing(w.oidc, nil, nil).ReleasePublish(ctx, scanned, otherDigest, "json", "ci.yml", teskrepo.GitURL); err == nil || !strings.Contains(err.Error(), "is not what the push job pushed") {
		t.Errorf("publish of digests the push job did not print: %v", err)
	}
	// Publishing needs the OIDC token, or the endpoint to request one from.
	if _, err := w.m.ReleasePublish(ctx, scanned, pushed, "json", "ci.yml", teskrepo.GitURL); err == nil || !strings.Contains(err.Error(), "--oidc-token") {
		t.Errorf("publish without a token: %v", err)
	}
	// As release.yml calls it: the signing tool requests a token right before each use.
	te := w.pub.TokenEndpoint(t, 5*time.Minute)
	requestURL := w.m.engine().SetSecret(publishtest.TokenRequestURLSecret, te.URL)
	requestToken := w.m.engine().SetSecret(publishtest.TokenRequestTokenSecret, te.Bearer)
	if _, err := w.signing(nil, requestURL, nil).ReleasePublish(ctx, scanned, pushed, "json", "ci.yml", teskrepo.GitURL); err == nil || !strings.Contains(err.Error(), "go together") {
		t.Errorf("half a token request: %v", err)
	}
	report, err := w.signing(nil, requestURL, requestToken).ReleasePublish(ctx, scanned, pushed, "text", "ci.yml", teskrepo.GitURL)
	if err != nil {
		t.Fatal(err)
	}
	if n := te.Requests(); n != 18 {
		t.Errorf("%d tokens requested, want one per attest, SBOM attest and sign of each index and platform image", n)
	}
	if strings.Count(report, "tags:        0.11.0rc1\n") != 2 || strings.Contains(report, "latest") {
		t.Errorf("publish report:\n%s", report)
	}
	rel, err := w.m.ReleasePublishRelease(ctx, "v0.11.0rc1", "text", "ci.yml")
	if err != nil || !strings.Contains(rel, `GitHub release "v0.11.0rc1" (pre-release yes, make_latest false): created`) {
		t.Fatalf("publish-release: %s, %v", rel, err)
	}
	if _, err := w.m.ReleasePublishRelease(ctx, "v0.11.0rc1", "yaml", "ci.yml"); err == nil {
		t.Error("an unknown format was accepted")
	}
	w.noSecrets(t, pushed, scanned, report, rel)
}

// The release's builds and scans run the images --pin names (seen missing on a real
// engine: the release scanned with the default Trivy image whatever the pins said).
func TestReleaseUsesThePins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newReleaseWorld(t)
	w.tag(t, "v0.11.0")
	const trivy = "mirror.example/aquasec/trivy:0.69.3@sha256:2222222222222222222222222222222222222222222222222222222222222222"
	w.m.Pin = []string{"trivy=" + trivy}
	if _, err := w.release(ctx, "v0.11.0", true, "text"); err != nil {
		t.Fatal(err)
	}
	images := strings.Join(w.e.Graph().Images(), "\n")
	if !strings.Contains(images, trivy) || strings.Contains(images, "docker.io/aquasec/trivy") {
		t.Errorf("images pulled:\n%s", images)
	}
}

// The release runs the images of the tagged commit's pins file, which Dependabot keeps
// current on dev, as every function that works on a tree runs its own: the release, and the
// scan job, which learns the tree from the commit the push job handed over. --pin still
// wins for one run; a malformed file at the tag stops the release before anything is built.
func TestReleaseUsesTheTaggedTreesPinsFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newReleaseWorld(t)
	const bumped = "docker.io/aquasec/trivy:0.70.0@sha256:3333333333333333333333333333333333333333333333333333333333333333"
	w.repo.Release("v0.11.0", githubsim.MergedPull{Title: "build(deps): bump aquasec/trivy", Author: "dependabot[bot]",
		Files: map[string]string{pins.File: "FROM " + bumped + " AS trivy\n"}})
	w.repo.ServeTree(w.e, "v0.11.0")
	trivyRan := func(job string, want string) {
		t.Helper()
		scans := w.e.Graph().ExecsWith("trivy image")
		if len(scans) == 0 {
			t.Fatalf("%s ran no Trivy", job)
		}
		for _, x := range scans {
			if x.Image != want {
				t.Errorf("%s: Trivy ran %s, want %s", job, x.Image, want)
			}
		}
	}
	if _, err := w.release(ctx, "v0.11.0", true, "text"); err != nil {
		t.Fatal(err)
	}
	trivyRan("release --dry-run", bumped)

	pushed, err := w.m.ReleasePush(ctx, "v0.11.0", "ci.yml", "", teskrepo.GitURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.m.ReleaseScan(ctx, pushed, teskrepo.GitURL); err != nil {
		t.Fatal(err)
	}
	trivyRan("release-scan", bumped)

	const mirror = "mirror.example/aquasec/trivy:0.70.0@sha256:4444444444444444444444444444444444444444444444444444444444444444"
	w.m.Pin = []string{"trivy=" + mirror}
	if _, err := w.release(ctx, "v0.11.0", true, "text"); err != nil {
		t.Fatal(err)
	}
	if images := strings.Join(w.e.Graph().Images(), "\n"); !strings.Contains(images, mirror) {
		t.Errorf("--pin did not win over the tagged tree's pins file:\n%s", images)
	}

	w.m.Pin = nil
	w.repo.Release("v0.11.1", githubsim.MergedPull{Title: "build(deps): bump aquasec/trivy", Author: "dependabot[bot]",
		Files: map[string]string{pins.File: "FROM docker.io/aquasec/trivy:0.70.1 AS trivy\n"}})
	w.repo.ServeTree(w.e, "v0.11.1")
	builds := len(w.e.Graph().Builds())
	_, err = w.release(ctx, "v0.11.1", true, "text")
	if err == nil || !strings.Contains(err.Error(), "source: ") || !strings.Contains(err.Error(), pins.File+":1: docker.io/aquasec/trivy:0.70.1 is not pinned by digest") {
		t.Errorf("a malformed pins file at the tag: %v", err)
	}
	if len(w.e.Graph().Builds()) != builds {
		t.Error("a tree with a malformed pins file was built")
	}
}

// pushSplit runs release-push-platform for each default platform, then release-assemble
// with their outputs, as the release workflow's native runners do.
func (w *releaseWorld) pushSplit(ctx context.Context, tag string) (string, error) {
	var parts []string
	for _, p := range defaultPlatforms() {
		out, err := w.m.ReleasePushPlatform(ctx, tag, p, "ci.yml", "", teskrepo.GitURL)
		if err != nil {
			return "", err
		}
		parts = append(parts, out)
	}
	return w.m.ReleaseAssemble(ctx, tag, "["+strings.Join(parts, ",")+"]", "ci.yml")
}

// The release built per platform through the module: the assemble job prints what the
// single push job prints for the same images, so the scan and publish jobs take it as is.
func TestReleaseSplitPlatformsThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newReleaseWorld(t)
	w.tag(t, "v0.11.0rc1")

	if _, err := w.m.ReleasePushPlatform(ctx, "v0.11.0rc1", "arm64", "ci.yml", "", teskrepo.GitURL); err == nil || !strings.Contains(err.Error(), "--platform") {
		t.Errorf("a platform without its OS: %v", err)
	}
	if _, err := w.m.ReleaseAssemble(ctx, "v0.11.0rc1", "[{}]", "ci.yml"); err == nil || !strings.Contains(err.Error(), "--pushed: element 1") {
		t.Errorf("assemble of a handoff that is none: %v", err)
	}
	assembled, err := w.pushSplit(ctx, "v0.11.0rc1")
	if err != nil {
		t.Fatal(err)
	}
	single, err := w.m.ReleasePush(ctx, "v0.11.0rc1", "ci.yml", "", teskrepo.GitURL)
	if err != nil {
		t.Fatal(err)
	}
	if assembled != single {
		t.Errorf("release-assemble printed\n%s\nrelease-push\n%s", assembled, single)
	}
	scanned, err := w.m.ReleaseScan(ctx, assembled, teskrepo.GitURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.signing(w.oidc, nil, nil).ReleasePublish(ctx, scanned, assembled, "json", "ci.yml", teskrepo.GitURL); err != nil {
		t.Fatal(err)
	}
	w.noSecrets(t, assembled, scanned)
}

// The release workflow as the example runs it, with the seed's two approvals: the
// platform jobs push (approval one), the scan job scans their images before any index
// exists, and the publish job (approval two) assembles the indexes, then publishes them
// with those verdicts.
func TestReleaseScannedPerPlatformThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newReleaseWorld(t)
	w.tag(t, "v0.11.0rc1")
	var parts []string
	for _, p := range defaultPlatforms() {
		out, err := w.m.ReleasePushPlatform(ctx, "v0.11.0rc1", p, "ci.yml", "", teskrepo.GitURL)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, strings.TrimSpace(out))
	}
	platforms := "[" + strings.Join(parts, ",") + "]"
	scanned, err := w.m.ReleaseScan(ctx, platforms, teskrepo.GitURL)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(scanned, `"platform_scans"`) {
		t.Fatalf("release-scan of the platform jobs printed %s", scanned)
	}
	assembled, err := w.m.ReleaseAssemble(ctx, "v0.11.0rc1", platforms, "ci.yml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.signing(w.oidc, nil, nil).ReleasePublish(ctx, "{}", assembled, "json", "ci.yml", teskrepo.GitURL); err == nil || !strings.Contains(err.Error(), "--handoff: neither") {
		t.Errorf("a handoff that is none: %v", err)
	}
	rep, err := w.signing(w.oidc, nil, nil).ReleasePublish(ctx, scanned, assembled, "json", "ci.yml", teskrepo.GitURL)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep, `"0.11.0rc1"`) {
		t.Errorf("report %s", rep)
	}
	w.noSecrets(t, scanned, assembled, rep)
}
