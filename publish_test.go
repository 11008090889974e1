package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	sdk "dagger.io/dagger"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

var keep = flag.String("keep", "", "TestPublishDevThroughTheModule writes the trusted root, a signed image (OCI layout with its referrers) and the cosign commands to check them into this folder")

const devSHA = "89abcdef0123456789abcdef0123456789abcdef"

// publishModule is the module as a GitHub job would call it: the constructor's registry
// (the test registry) and login, the signing tool from the repository's supplychain folder.
// Without a login, the engine refuses any read of a secret's plaintext.
func publishModule(t *testing.T, w *publishtest.World, withLogin bool) (*Shipyard, *engine.Engine) {
	t.Helper()
	return publishModuleOf(t, w, withLogin, nil)
}

// publishModuleOf is publishModule on the fixture tree with changes.
func publishModuleOf(t *testing.T, w *publishtest.World, withLogin bool, changes map[string]string) (*Shipyard, *engine.Engine) {
	t.Helper()
	m, e, _ := publishModuleOnGitHub(t, w, withLogin, changes)
	return m, e
}

// publishModuleOnGitHub is publishModuleOf with the GitHub repository it publishes for,
// whose attestation store publish-dev writes with the workflow's token.
func publishModuleOnGitHub(t *testing.T, w *publishtest.World, withLogin bool, changes map[string]string) (*Shipyard, *engine.Engine, *githubsim.Repo) {
	t.Helper()
	var opts []engine.Option
	if withLogin {
		// The module reads the registry password into memory for its own registry calls.
		opts = append(opts, engine.AllowSecretPlaintext())
	}
	m, e := newModule(t, changes, opts...)
	e.ExpectExecs(publishExecs...)
	cleanScans(e)
	installImages(t, w, e)
	m.Registry, m.Org = w.Registry.Host, "elixircloud"
	// dev is created or moved only for a commit on the dev branch (the tag step asks
	// GitHub): devSHA is dev's head.
	sim := githubsim.New(t, githubsim.WithAnonymousReads())
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	repo.ImportCommit(devSHA, "fix: retry uploads", nil, map[string]string{"README.md": "tesk-core\n"})
	repo.SetBranch("dev", devSHA)
	m.GithubAPI = sim.URL + "/"
	// The dev workflow's token, which may write the repository's attestations.
	const token = "ghs_devworkflowtoken00000000000000000000"
	sim.AddToken(token, githubsim.Token{})
	w.SetSecret("github-token", token)
	m.GithubToken = m.engine().SetSecret("github-token", token)
	if withLogin {
		m.RegistryUsername = w.Username
		m.RegistryPassword = m.engine().SetSecret(publishtest.RegistryPasswordSecret, w.Password)
	}
	m.clients.supplychain = m.engine().Host().Directory(publishtest.SupplychainSource(t))
	return m, e, repo
}

// withSigstore chains with-sigstore as the dev workflow does, with token (default: the
// test Sigstore's valid one) and the test Sigstore's URLs and trusted root.
func withSigstore(m *Shipyard, w *publishtest.World, token *sdk.Secret) *Shipyard {
	c := m.engine()
	if token == nil {
		token = c.SetSecret(publishtest.OIDCTokenSecret, w.Token)
	}
	return m.WithSigstore(token, nil, nil, w.Sigstore.URL, w.Sigstore.URL, c.Host().File(w.Sigstore.TrustedRoot), devGitHubEnv, "", "", "")
}

func repoOf(w *publishtest.World, name string) string {
	return w.Registry.Host + "/elixircloud/tesk-core-" + name
}

var devGitHubEnv = []string{
	"GITHUB_SERVER_URL=https://github.com", "GITHUB_REPOSITORY=elixir-cloud-aai/tesk-core",
	"GITHUB_WORKFLOW_REF=" + publishtest.WorkflowRef, "GITHUB_EVENT_NAME=push",
	"GITHUB_RUN_ID=99", "GITHUB_RUN_ATTEMPT=1", "RUNNER_ENVIRONMENT=github-hosted",
}

// noSecret fails if a secret value, or a 12-byte piece of one, is in any text.
func noSecret(t *testing.T, w *publishtest.World, texts ...string) {
	t.Helper()
	for _, s := range w.SecretValues() {
		for i := 0; i+12 <= len(s); i += 4 {
			for _, text := range texts {
				if strings.Contains(text, s[i:i+12]) {
					t.Fatalf("secret bytes leaked into %.300q", text)
				}
			}
		}
	}
}

func TestPublishDevThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	m, e, repo := publishModuleOnGitHub(t, w, true, nil)

	out, err := withSigstore(m, w, nil).PublishDev(ctx, devSHA)
	if err != nil {
		t.Fatalf("publish-dev: %v", err)
	}
	var res publish.BranchResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("output %s: %v", out, err)
	}
	// Each verified digest's provenance and SBOM are in GitHub's attestation store too.
	if stored := len(repo.Attestations()); len(res.Verified) == 0 || stored != 2*len(res.Verified) {
		t.Errorf("%d attestations stored for %d verified digests, want their provenance and SBOM", stored, len(res.Verified))
	}
	for _, n := range []string{"filer", "taskmaster"} {
		d := published(t, w, n)
		want := map[string]string{"dev": d, "sha-" + devSHA: d}
		if res.Digests[n] != d || !reflect.DeepEqual(w.Registry.Tags(t, repoOf(w, n)), want) {
			t.Errorf("%s: printed %s, tags %v, want %v", n, res.Digests[n], w.Registry.Tags(t, repoOf(w, n)), want)
		}
	}

	root := m.engine().Host().File(w.Sigstore.TrustedRoot)
	text, err := m.Verify(ctx, repoOf(w, "filer")+":dev", publishtest.IdentityRegexp, publishtest.Issuer, root, 1, "text", false)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if !strings.Contains(text, "verified "+repoOf(w, "filer")+":dev") || !strings.Contains(text, "signature by "+publishtest.Identity) ||
		!strings.Contains(text, "\n  verified "+repoOf(w, "filer")+"@"+digestOf(t, w.PlatformImage(t, "filer", "linux/arm64"))+" (linux/arm64)\n") {
		t.Errorf("verify printed:\n%s", text)
	}
	js, err := m.Verify(ctx, repoOf(w, "filer")+"@"+published(t, w, "filer"), publishtest.IdentityRegexp, publishtest.Issuer, root, 1, "json", false)
	var verified publish.Verification
	if err != nil || json.Unmarshal([]byte(js), &verified) != nil {
		t.Fatalf("verify --format json: %q, %v", js, err)
	}
	// The index, then each platform image by its own digest.
	if len(verified.Platforms) != 2 || verified.Platforms[1].Platform != "linux/arm64" || len(verified.Platforms[1].Verified) != 3 ||
		verified.Platforms[1].Digest != digestOf(t, w.PlatformImage(t, "filer", "linux/arm64")) {
		t.Errorf("verify --format json: %s", js)
	}
	// publish-dev attested the SBOM, so --require-sbom passes.
	withSBOM, err := m.Verify(ctx, repoOf(w, "filer")+":dev", publishtest.IdentityRegexp, publishtest.Issuer, root, 1, "text", true)
	if err != nil || !strings.Contains(withSBOM, "CycloneDX SBOM by "+publishtest.Identity) {
		t.Fatalf("verify --require-sbom: %v\n%s", err, withSBOM)
	}
	_, wrong := m.Verify(ctx, repoOf(w, "filer")+":dev", `^https://github\.com/fork/.*$`, publishtest.Issuer, root, 1, "text", false)
	if wrong == nil {
		t.Error("verify accepted a wrong identity")
	}
	noSecret(t, w, e.Graph().String(), out, text, js, errText(wrong))

	// The -keep folder, always written (to a temporary one without -keep) and read back.
	dir := *keep
	if dir == "" {
		dir = t.TempDir()
	}
	w.Keep(t, dir, repoOf(w, "filer"), published(t, w, "filer"))
	checkKeptLayout(t, filepath.Join(dir, "image"), published(t, w, "filer"),
		digestOf(t, w.PlatformImage(t, "filer", "linux/amd64")), digestOf(t, w.PlatformImage(t, "filer", "linux/arm64")))
}

// checkKeptLayout: the layout's "signed" names the image index itself (which oras cp
// copies with its platform images), and it holds the three referrers (signature,
// provenance, SBOM) of the index and of each platform image.
func checkKeptLayout(t *testing.T, dir, index string, platforms ...string) {
	t.Helper()
	lp, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	top, err := lp.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	subjects := map[string]int{}
	var signed []string
	for _, d := range m.Manifests {
		if d.Annotations["org.opencontainers.image.ref.name"] == "signed" {
			signed = append(signed, string(d.MediaType)+" "+d.Digest.String())
		}
		if d.MediaType.IsImage() {
			img, err := top.Image(d.Digest)
			if err != nil {
				t.Fatal(err)
			}
			if mf, err := img.Manifest(); err == nil && mf.Subject != nil {
				subjects[mf.Subject.Digest.String()]++
			}
		}
	}
	if want := string(types.OCIImageIndex) + " " + index; len(signed) != 1 || signed[0] != want {
		t.Errorf("the layout tags %q as signed, want the index %s", signed, want)
	}
	idx, err := top.ImageIndex(v1.Hash{Algorithm: "sha256", Hex: strings.TrimPrefix(index, "sha256:")})
	if err != nil {
		t.Fatalf("the index is not in the layout: %v", err)
	}
	for _, p := range platforms {
		if _, err := idx.Image(v1.Hash{Algorithm: "sha256", Hex: strings.TrimPrefix(p, "sha256:")}); err != nil {
			t.Errorf("platform image %s is not in the layout: %v", p, err)
		}
	}
	for _, s := range append([]string{index}, platforms...) {
		if subjects[s] != 3 {
			t.Errorf("the layout holds %d referrers of %s, want 3", subjects[s], s)
		}
	}
}

// Each step as its own GitHub job: a fresh engine per job, the digests passed along as the
// JSON each job prints, and the scan job without any credential.
func TestPublishStepsOneByOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	job := func(withLogin bool) (*Shipyard, *engine.Engine) { return publishModule(t, w, withLogin) }

	m, _ := job(true)
	digests, err := m.PushByDigest(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	var byName map[string]string
	if err := json.Unmarshal([]byte(digests), &byName); err != nil || byName["filer"] != repoOf(w, "filer")+"@"+published(t, w, "filer") || len(byName) != 2 {
		t.Fatalf("push-by-digest printed %s (%v)", digests, err)
	}

	scan, scanEngine := job(false)
	refs := []string{byName["filer"], byName["taskmaster"]}
	if _, err := scan.ScanDigests(ctx, refs, ""); err != nil {
		t.Fatalf("scan-digests: %v", err)
	}
	// The scan job may take the push job's JSON as it is, and scans the same digests.
	scanJSON, scanJSONEngine := job(false)
	if _, err := scanJSON.ScanDigests(ctx, nil, digests); err != nil {
		t.Fatalf("scan-digests --digests: %v", err)
	}
	if _, err := scanJSON.ScanDigests(ctx, refs, digests); err == nil {
		t.Error("scan-digests accepted both --ref and --digests")
	}
	for _, e := range []*engine.Engine{scanEngine, scanJSONEngine} {
		if s := e.Graph().Secrets(); len(s) != 0 {
			t.Errorf("the scan job's graph holds secrets %v", s)
		}
		var scanned []string
		for _, x := range e.Graph().Execs() {
			if len(x.Secrets) != 0 {
				t.Errorf("scan exec %q got secrets", x.Args)
			}
			if len(x.Args) > 1 && x.Args[1] == "image" {
				scanned = append(scanned, x.Args[len(x.Args)-1])
			}
		}
		slices.Sort(scanned)
		// Each platform image of each index, by its own digest.
		var want []string
		for _, n := range []string{"filer", "taskmaster"} {
			for _, p := range defaultPlatforms() {
				want = append(want, repoOf(w, n)+"@"+digestOf(t, w.PlatformImage(t, n, p)))
			}
		}
		slices.Sort(want)
		if !slices.Equal(scanned, want) {
			t.Errorf("trivy scanned %v, want exactly %v", scanned, want)
		}
	}

	// With a login in the constructor, scan-digests still reads no credential: this engine
	// refuses any read of a secret's plaintext.
	withPassword, _ := job(false)
	withPassword.RegistryUsername = w.Username
	withPassword.RegistryPassword = withPassword.engine().SetSecret(publishtest.RegistryPasswordSecret, w.Password)
	if _, err := withPassword.ScanDigests(ctx, nil, digests); err != nil {
		t.Fatalf("scan-digests with a registry password given: %v", err)
	}

	var outputs []string
	for round := range 2 {
		// The second round re-runs every step: nothing new is signed, written or moved.
		writes := len(w.Registry.Writes())
		certs, entries := w.Sigstore.Counts(t)

		m, e := job(true)
		attested, err := withSigstore(m, w, nil).Attest(ctx, digests, devSHA, "refs/heads/dev", "")
		if err != nil {
			t.Fatalf("attest: %v", err)
		}
		m, e2 := job(true)
		signed, err := withSigstore(m, w, nil).Sign(ctx, digests)
		if err != nil {
			t.Fatalf("sign: %v", err)
		}
		m, e3 := job(true)
		tagged, err := m.TagImages(ctx, digests, []string{"sha-" + devSHA, "dev"})
		if err != nil {
			t.Fatalf("tag-images: %v", err)
		}
		outputs = append(outputs, attested, signed, tagged)
		for _, g := range []*engine.Engine{e, e2, e3} {
			noSecret(t, w, g.Graph().String())
		}
		var ev, sv []publish.Evidence
		var reports []publish.ApplyReport
		for _, x := range []struct {
			out string
			v   any
		}{{attested, &ev}, {signed, &sv}, {tagged, &reports}} {
			if err := json.Unmarshal([]byte(x.out), x.v); err != nil {
				t.Fatalf("output %s: %v", x.out, err)
			}
		}
		// Evidence on each index and each of its two platform images; tags on the indexes.
		if len(ev) != 6 || len(sv) != 6 || len(reports) != 2 {
			t.Fatalf("round %d printed\n%s\n%s\n%s", round, attested, signed, tagged)
		}
		if round == 1 {
			if extra := w.Registry.Writes()[writes:]; len(extra) != 0 {
				t.Errorf("the re-run wrote %v", extra)
			}
			if c, n := w.Sigstore.Counts(t); c != certs || n != entries {
				t.Errorf("the re-run signed again")
			}
			for _, e := range append(ev, sv...) {
				if e.Created {
					t.Errorf("the re-run created %+v", e)
				}
			}
			for _, r := range reports {
				if len(r.Written) != 0 || len(r.Kept) != 2 {
					t.Errorf("the re-run tagged %+v", r)
				}
			}
		}
	}
	for _, n := range []string{"filer", "taskmaster"} {
		if refs := w.Registry.Referrers(t, repoOf(w, n), published(t, w, n)); len(refs) != 2 {
			t.Errorf("%s referrers %v, want one signature and one provenance", n, refs)
		}
		if tags := w.Registry.Tags(t, repoOf(w, n)); len(tags) != 2 {
			t.Errorf("%s tags %v", n, tags)
		}
	}
	noSecret(t, w, outputs...)

	// tag-images never moves a published commit tag, and leaves latest to the release.
	w.Rebuild("filer")
	m, _ = job(true)
	again, err := m.PushByDigest(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	m, _ = job(true)
	if _, err := m.TagImages(ctx, again, []string{"sha-" + devSHA}); err == nil || !strings.Contains(err.Error(), "cannot point at") {
		t.Errorf("moving sha-%s: %v", devSHA, err)
	}
	if _, err := m.TagImages(ctx, again, []string{"latest"}); err == nil || !strings.Contains(err.Error(), "release flow") {
		t.Errorf("latest from tag-images: %v", err)
	}
	if _, err := withSigstore(m, w, nil).Sign(ctx, `{"filer": "sha256:1"}`); err == nil || !strings.Contains(err.Error(), "--digests") {
		t.Errorf("bad digests: %v", err)
	}
}

func TestPublishDevStopsOnAnExpiredToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	m, e := publishModule(t, w, true)
	expired := m.engine().SetSecret(publishtest.ExpiredTokenSecret, w.ExpiredToken)
	_, err := withSigstore(m, w, expired).PublishDev(ctx, devSHA)
	if err == nil || !strings.Contains(err.Error(), "token expired") || !strings.Contains(err.Error(), "no tag was written") {
		t.Fatalf("err = %v", err)
	}
	for _, n := range []string{"filer", "taskmaster"} {
		if tags := w.Registry.Tags(t, repoOf(w, n)); len(tags) != 0 {
			t.Errorf("%s tagged %v", n, tags)
		}
	}
	noSecret(t, w, err.Error(), e.Graph().String())
	if _, err := m.PublishDev(ctx, "main"); err == nil || !strings.Contains(err.Error(), "full commit SHA") {
		t.Errorf("a branch name as --sha: %v", err)
	}
}

// Outside GitHub Actions, a with-sigstore given only --oidc-token (as a laptop has it)
// names no builder for the provenance: publish-dev refuses in its first step, before the
// registry sees a single write, rather than at attest with the digests already pushed.
func TestPublishDevChecksTheProvenanceInputsBeforeItPushes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	m, _ := publishModule(t, w, true)
	c := m.engine()
	laptop := m.WithSigstore(c.SetSecret(publishtest.OIDCTokenSecret, w.Token), nil, nil,
		w.Sigstore.URL, w.Sigstore.URL, c.Host().File(w.Sigstore.TrustedRoot), nil, "", "", "")
	_, err := laptop.PublishDev(ctx, devSHA)
	if err == nil || !errors.Is(err, publish.ErrNoBuilder) || !strings.Contains(err.Error(), publish.StepInputs) ||
		!strings.Contains(err.Error(), "nothing was pushed") {
		t.Fatalf("publish-dev without a builder: %v", err)
	}
	if writes := w.Registry.Writes(); len(writes) != 0 {
		t.Errorf("the registry was written before the inputs were checked: %v", writes)
	}
	// With the builder named, the same call goes through.
	withBuilder := laptop.WithSigstore(c.SetSecret(publishtest.OIDCTokenSecret, w.Token), nil, nil,
		w.Sigstore.URL, w.Sigstore.URL, c.Host().File(w.Sigstore.TrustedRoot), nil,
		"https://ci.example.org/builder", "https://ci.example.org/build-type/v1", "")
	if _, err := withBuilder.PublishDev(ctx, devSHA); err != nil {
		t.Fatalf("publish-dev with --builder-id and --build-type: %v", err)
	}
	if len(w.Registry.Writes()) == 0 {
		t.Error("nothing was pushed by the call that had every input")
	}
}

// scan-digests keeps its reports when the policy fails: the failing verdict is in
// verdict.json, next to the SARIF and JSON reports the workflow uploads.
func TestScanDigestsKeepsItsReportsOnAFailingVerdict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	for _, n := range []string{"filer", "taskmaster"} {
		w.Registry.Push(t, repoOf(w, n), w.Image(t, n))
	}
	m, e := publishModule(t, w, false)
	e.OnFile(engine.FileRule{Path: "/out/filer.json", Contents: string(corpus.Read(t, "trivy", "debian-buster.json"))})
	dir, err := m.ScanDigests(ctx, []string{repoOf(w, "filer") + "@" + w.Digest(t, "filer")}, "")
	if err != nil {
		t.Fatalf("scan-digests returned no reports: %v", err)
	}
	raw, err := dir.File("verdict.json").Contents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ci.ParseVerdict([]byte(raw))
	if err != nil || v.Passed || !strings.Contains(strings.Join(v.Failures, "\n"), "fixable CRITICAL or HIGH") {
		t.Errorf("verdict %+v (%v), want a failure naming the fixable findings", v, err)
	}
	for _, f := range []string{"filer.sarif", "filer.json", "summary.txt"} {
		if _, err := dir.File(f).Contents(ctx); err != nil {
			t.Errorf("%s is missing: %v", f, err)
		}
	}
}

func TestScanPublishedThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	for _, n := range []string{"filer", "taskmaster"} {
		w.Registry.Push(t, repoOf(w, n), w.Image(t, n))
		w.Registry.Tag(t, repoOf(w, n), "latest", w.Digest(t, n))
	}
	refs := []string{repoOf(w, "filer") + ":latest", repoOf(w, "taskmaster") + ":latest"}
	buster := string(corpus.Read(t, "trivy", "debian-buster.json"))
	// Whatever the verdict, the reports come back: a failing verdict is in verdict.json,
	// which the workflow checks after uploading them.
	tests := []struct {
		name        string
		fail        bool
		wantPassed  bool
		wantFailure string
	}{
		{name: "report only", fail: false, wantPassed: true},
		{name: "fail on findings", fail: true, wantPassed: false, wantFailure: "fixable CRITICAL or HIGH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, e := publishModule(t, w, false)
			e.OnFile(engine.FileRule{Path: "/out/filer-latest.json", Contents: buster})
			e.OnFile(engine.FileRule{Path: "/out/taskmaster-latest.json", Contents: `{"SchemaVersion": 2, "Results": []}`})
			dir, err := m.ScanPublished(ctx, refs, tt.fail)
			if err != nil {
				t.Fatal(err)
			}
			targets, err := dir.File("targets.json").Contents(ctx)
			if err != nil || !strings.Contains(targets, w.Digest(t, "filer")) {
				t.Errorf("targets.json %s, %v", targets, err)
			}
			raw, err := dir.File("verdict.json").Contents(ctx)
			if err != nil {
				t.Fatal(err)
			}
			v, err := ci.ParseVerdict([]byte(raw))
			if err != nil || v.Passed != tt.wantPassed || !strings.Contains(strings.Join(v.Failures, "\n"), tt.wantFailure) {
				t.Errorf("verdict %+v (%v), want passed=%t with %q", v, err, tt.wantPassed, tt.wantFailure)
			}
			if _, err := dir.File("filer-latest.sarif").Contents(ctx); err != nil {
				t.Errorf("the SARIF report is missing: %v", err)
			}
			if s := e.Graph().Secrets(); len(s) != 0 {
				t.Errorf("the weekly scan holds secrets %v", s)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
