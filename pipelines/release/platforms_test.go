package release

import (
	"context"
	"slices"
	"strings"
	"testing"

	"dagger.io/dagger"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/testkit/teskrepo"
	"dagger/shipyard/pipelines/publish"
)

var bothPlatforms = []dagger.Platform{"linux/amd64", "linux/arm64"}

func newPlatformWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t, teskrepo.Options{})
	w.platforms = bothPlatforms
	w.freshEngine()
	return w
}

// A multi-platform release: each image is built, version-checked and scanned per platform,
// pushed as one index, evidence goes on the index and on each platform image, and the
// version tag names the index. The dry run reports exactly the digests the release pushes.
func TestReleaseMultiPlatform(t *testing.T) {
	w := newPlatformWorld(t)
	w.repo.Release("v0.11.0")
	dry, err := w.run("v0.11.0", Options{DryRun: true})
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, w.log.String())
	}
	if n := w.registryWrites(); n != 0 {
		t.Errorf("a dry run wrote to the registry %d time(s)", n)
	}
	if got := len(w.e.Graph().ExecsWith("importlib.metadata")); got != 4 {
		t.Errorf("the version was checked in %d image(s), want 4 (2 images × 2 platforms)", got)
	}

	w.freshEngine()
	rep, err := w.run("v0.11.0", Options{})
	if err != nil {
		t.Fatalf("release: %v\n%s", err, w.log.String())
	}
	for i, img := range rep.Images {
		if d := dry.Images[i]; d.Digest != img.Digest || !slices.Equal(withoutOutcomes(d.Platforms), withoutOutcomes(img.Platforms)) {
			t.Errorf("%s: the dry run said %s %+v, the release pushed %s %+v", img.Name, d.Digest, d.Platforms, img.Digest, img.Platforms)
		}
		m := w.pub.Registry.Index(t, img.Repository, img.Digest)
		if len(m.Manifests) != 2 || len(img.Platforms) != 2 {
			t.Fatalf("%s: index lists %d image(s), the report %d", img.Name, len(m.Manifests), len(img.Platforms))
		}
		if got := w.tags(img.Name)["0.11.0"]; got != img.Digest {
			t.Errorf("%s: 0.11.0 is on %s, want the index %s", img.Name, got, img.Digest)
		}
		if !img.Scan.Passed || !strings.Contains(img.Scan.Summary, "linux/arm64: ") {
			t.Errorf("%s: verdict %+v, want one over both platforms", img.Name, img.Scan)
		}
		for j, p := range img.Platforms {
			if p.Digest != m.Manifests[j].Digest.String() || p.Platform != m.Manifests[j].Platform.String() {
				t.Errorf("%s: report platform %+v, index entry %+v", img.Name, p, m.Manifests[j])
			}
			if !p.Scan.Passed || p.Scan.Digest != p.Digest || p.Signature == "" || p.Attestation == "" || p.SBOM == "" {
				t.Errorf("%s %s: %+v, want a passing scan of its digest and its evidence", img.Name, p.Platform, p)
			}
			if prov, sboms, sigs := w.bundles(img.Name, p.Digest); prov != 1 || sboms != 1 || sigs != 1 {
				t.Errorf("%s %s carries %d provenance, %d SBOM, %d signature bundle(s)", img.Name, p.Platform, prov, sboms, sigs)
			}
		}
		if prov, sboms, sigs := w.bundles(img.Name, img.Digest); prov != 1 || sboms != 1 || sigs != 1 {
			t.Errorf("%s index carries %d provenance, %d SBOM, %d signature bundle(s)", img.Name, prov, sboms, sigs)
		}
	}
	if text := rep.Text(); !strings.Contains(text, "linux/arm64: sha256:") {
		t.Errorf("the report does not list the platform images:\n%s", text)
	}
	w.assertNoSecrets(rep.Text())

}

// withoutOutcomes keeps what a dry run knows of each platform image: its digest.
func withoutOutcomes(ps []PlatformReport) []PlatformReport {
	out := make([]PlatformReport, len(ps))
	for i, p := range ps {
		out[i] = PlatformReport{Platform: p.Platform, Digest: p.Digest}
	}
	return out
}

// The workflow's jobs with multi-platform images: the scan job scans each platform image
// the registry's index lists, the publish job requires a passing scan of each, and a
// handoff whose platforms disagree with the index is refused.
func TestWorkflowJobsMultiPlatform(t *testing.T) {
	ctx := context.Background()
	w := newPlatformWorld(t)
	w.repo.Release("v0.11.0")
	w.serve("v0.11.0")
	cfg := w.config()
	pushed, err := PushJob(ctx, cfg, "v0.11.0")
	if err != nil {
		t.Fatalf("push job: %v", err)
	}
	text, _ := pushed.JSON()
	if pushed, err = ParseHandoff(text); err != nil || len(pushed.Images[0].Platforms) != 2 {
		t.Fatalf("push handoff %s: %v", text, err)
	}

	// A handoff that leaves a platform out would leave it unscanned.
	short := pushed
	short.Images = slices.Clone(pushed.Images)
	short.Images[0].Platforms = short.Images[0].Platforms[:1]
	if _, _, err := ScanJob(ctx, w.config(), short); flow.FailedStep(err) != StepCheckHandoff || !strings.Contains(err.Error(), "the registry's index lists") {
		t.Errorf("scan job with a platform left out: %v", err)
	}

	w.freshEngine()
	w.serve("v0.11.0")
	scanned, _, err := ScanJob(ctx, w.config(), pushed)
	if err != nil {
		t.Fatalf("scan job: %v", err)
	}
	if len(scanned.Scans) != 4 {
		t.Fatalf("scan job recorded %d scan(s), want 4: %+v", len(scanned.Scans), scanned.Scans)
	}
	for _, p := range publish.Scanned(pushed.Images) {
		if !slices.ContainsFunc(scanned.Scans, func(s ScanRecord) bool { return s.Name == p.Name && s.Digest == p.Digest && s.Passed }) {
			t.Errorf("no passing scan of %s (%s): %+v", p.Name, p.Digest, scanned.Scans)
		}
	}

	// One platform's scan missing: nothing is attested, signed or tagged.
	partial := scanned
	partial.Scans = slices.DeleteFunc(slices.Clone(scanned.Scans), func(s ScanRecord) bool { return strings.HasSuffix(s.Name, "(linux/arm64)") })
	w.freshEngine()
	w.serve("v0.11.0")
	writes := w.registryWrites()
	if _, err := PublishJob(ctx, w.config(), partial, pushed); flow.FailedStep(err) != StepCheckHandoff || !strings.Contains(err.Error(), "(linux/arm64)) has no passing scan") {
		t.Errorf("publish job without the arm64 scans: %v", err)
	}
	if extra := w.registryWrites() - writes; extra != 0 {
		t.Errorf("the refused publish job wrote %d time(s)", extra)
	}

	w.freshEngine()
	w.serve("v0.11.0")
	rep, err := PublishJob(ctx, w.config(), scanned, pushed)
	if err != nil {
		t.Fatalf("publish job: %v", err)
	}
	for _, img := range rep.Images {
		if len(img.Platforms) != 2 || img.Platforms[1].Signature == "" || w.tags(img.Name)["0.11.0"] != img.Digest {
			t.Errorf("%s published as %+v, tags %v", img.Name, img, w.tags(img.Name))
		}
	}
}
