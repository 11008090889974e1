package release

import (
	"context"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/teskrepo"
	"dagger/shipyard/pipelines/publish"
)

// bumpedTrivy is the Trivy a Dependabot pull request pinned in the tagged tree's pins file.
const bumpedTrivy = "docker.io/aquasec/trivy:0.70.0@sha256:3333333333333333333333333333333333333333333333333333333333333333"

// tagWithPins releases tag on a commit whose pins file (pins.File) holds file, as a
// Dependabot pull request merged to dev before the release leaves it.
func tagWithPins(w *world, tag, file string) {
	w.t.Helper()
	w.repo.Release(tag, githubsim.MergedPull{Title: "build(deps): bump aquasec/trivy", Author: "dependabot[bot]",
		Files: map[string]string{pins.File: file}})
}

// trivyImages are the images of every Trivy exec an engine ran, failing t when it ran none.
func trivyImages(t *testing.T, e *engine.Engine) []string {
	t.Helper()
	var out []string
	for _, x := range e.Graph().ExecsWith("trivy image") {
		out = append(out, x.Image)
	}
	if len(out) == 0 {
		t.Fatalf("no Trivy exec ran:\n%s", e.Graph())
	}
	return out
}

// requireTrivy fails t unless every Trivy exec of e ran image.
func requireTrivy(t *testing.T, job string, e *engine.Engine, image string) {
	t.Helper()
	for _, got := range trivyImages(t, e) {
		if got != image {
			t.Errorf("%s: Trivy ran %s, want %s", job, got, image)
		}
	}
}

// TestReleaseRunsTheTaggedTreesPins: the tagged commit's pins file, which Dependabot keeps
// current on dev, sets the Trivy every job of the release runs (the release, the push, scan
// and publish jobs), as for every function that works on a tree; the caller's --pin still
// wins.
func TestReleaseRunsTheTaggedTreesPins(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, teskrepo.Options{})
	const tag = "v0.11.0rc1"
	tagWithPins(w, tag, "# bumped by Dependabot\nFROM "+bumpedTrivy+" AS trivy\n")

	if _, err := w.run(tag, Options{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	requireTrivy(t, "release --dry-run", w.e, bumpedTrivy)

	w.freshEngine()
	w.serve(tag)
	pushed, err := PushJob(ctx, w.config(), tag)
	if err != nil {
		t.Fatal(err)
	}
	w.freshEngine()
	w.serve(tag)
	scanned, _, err := ScanJob(ctx, w.config(), pushed)
	if err != nil {
		t.Fatal(err)
	}
	requireTrivy(t, "the scan job", w.e, bumpedTrivy)
	w.freshEngine()
	w.serve(tag)
	if _, err := PublishJob(ctx, w.config(), scanned, pushed); err != nil {
		t.Fatal(err)
	}
	requireTrivy(t, "the publish job's SBOM", w.e, bumpedTrivy)

	// The caller's --pin wins over the file for one run.
	const mirror = "mirror.example/aquasec/trivy:0.70.0@sha256:4444444444444444444444444444444444444444444444444444444444444444"
	w.freshEngine()
	cfg := w.configServing(tag)
	cfg.PinOverrides = []string{"trivy=" + mirror}
	if _, err := Run(ctx, cfg, tag, Options{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	requireTrivy(t, "release --dry-run --pin", w.e, mirror)
}

// TestPlatformScanRunsTheTaggedTreesPins: the scan job of a release pushed per platform,
// which runs before any index exists, runs the tagged tree's Trivy too.
func TestPlatformScanRunsTheTaggedTreesPins(t *testing.T) {
	ctx := context.Background()
	w := newPlatformWorld(t)
	const tag = "v0.11.0"
	tagWithPins(w, tag, "FROM "+bumpedTrivy+" AS trivy\n")
	var parts []publish.PlatformHandoff
	for _, p := range bothPlatforms {
		w.freshEngine()
		part, err := PushPlatformJob(ctx, w.configServing(tag), tag, p)
		if err != nil {
			t.Fatalf("push job for %s: %v", p, err)
		}
		parts = append(parts, part)
	}
	w.freshEngine()
	if _, _, err := ScanPlatformsJob(ctx, w.configServing(tag), parts); err != nil {
		t.Fatal(err)
	}
	requireTrivy(t, "the platform scan job", w.e, bumpedTrivy)
}

// TestMalformedPinsFileAtTheTagStopsTheRelease: a pins file the tagged commit holds that is
// not what pins.ParseFile reads stops the release at its source, naming the file, the line,
// the rule and the fix, before anything is built or pushed.
func TestMalformedPinsFileAtTheTagStopsTheRelease(t *testing.T) {
	w := newWorld(t, teskrepo.Options{})
	const tag = "v0.11.0"
	tagWithPins(w, tag, "FROM docker.io/aquasec/trivy:0.70.0 AS trivy\n")
	_, err := PushJob(context.Background(), w.configServing(tag), tag)
	requireDeclaredStep(t, err, pushJobSteps())
	if flow.FailedStep(err) != StepSource {
		t.Fatalf("failed at %q, want %q: %v", flow.FailedStep(err), StepSource, err)
	}
	for _, want := range []string{"source: at v0.11.0: " + pins.File + ":1:", "is not pinned by digest", "write <image>:<tag>@sha256:<digest>", "release a higher version"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}
	if len(w.e.Graph().Builds()) != 0 || w.registryWrites() != 0 {
		t.Error("something was built or pushed")
	}
}

// configServing serves tag on the current engine and returns the release's configuration.
func (w *world) configServing(tag string) Config {
	w.t.Helper()
	w.serve(tag)
	return w.config()
}
