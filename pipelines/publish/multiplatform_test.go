package publish_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/buildplatform"

	"dagger.io/dagger"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/ci/artifact"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

var platforms = []string{"linux/amd64", "linux/arm64"}

// newPlatformEnv is newEnv with the images built for both platforms.
func newPlatformEnv(t testing.TB, w *publishtest.World, opts ...engine.Option) *env {
	t.Helper()
	v := newEnv(t, w, opts...)
	w.InstallPlatforms(t, v.e, platforms, imageNames...)
	for _, n := range imageNames {
		for _, p := range platforms {
			v.e.OnFile(engine.FileRule{Path: "/out/" + ci.ReportFile(buildplatform.TargetName(n, dagger.Platform(p))) + ".json", Contents: cleanReport})
			v.e.OnFile(engine.FileRule{Path: "/out/" + ci.ReportFile(buildplatform.TargetName(n, dagger.Platform(p))) + ".sarif", Contents: flowexecs.CleanSARIF})
		}
	}
	for _, p := range platforms {
		v.p.Platforms = append(v.p.Platforms, dagger.Platform(p))
	}
	images, err := v.p.Images(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	v.images = artifact.Of(images)
	v.dev.Images = v.images
	return v
}

// platformDigests are the digests of name's platform images, in platforms' order.
func platformDigests(t testing.TB, w *publishtest.World, name string) []publish.PlatformDigest {
	t.Helper()
	var out []publish.PlatformDigest
	for _, p := range platforms {
		h, err := w.PlatformImage(t, name, p).Digest()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, publish.PlatformDigest{Platform: p, Digest: h.String()})
	}
	return out
}

func TestPublishDevMultiPlatform(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newPlatformEnv(t, w)

	res, err := publish.PublishBranch(ctx, v.dev, sha)
	if err != nil {
		t.Fatalf("publish-dev: %v", err)
	}
	for _, n := range imageNames {
		index := res.Digests[n]
		want := map[string]string{"sha-" + sha: index, "dev": index}
		if got := w.Registry.Tags(t, v.repo(n)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s tags %v, want %v (the index digest)", n, got, want)
		}
		m := w.Registry.Index(t, v.repo(n), index)
		var listed []publish.PlatformDigest
		for _, d := range m.Manifests {
			listed = append(listed, publish.PlatformDigest{Platform: d.Platform.String(), Digest: d.Digest.String()})
		}
		if want := platformDigests(t, w, n); !reflect.DeepEqual(listed, want) {
			t.Errorf("%s index lists %v, want the built %v", n, listed, want)
		}
		// Provenance, SBOM and signature on the index, which a tag names and cosign and
		// gh look evidence up on, and on each platform image, which a runtime pulls.
		for _, d := range append([]publish.PlatformDigest{{Platform: "index", Digest: index}}, listed...) {
			refs := w.Registry.Referrers(t, v.repo(n), d.Digest)
			slices.Sort(refs)
			if want := []string{sbomReferrer, signatureReferrer, provenanceReferrer}; !reflect.DeepEqual(refs, want) {
				t.Errorf("%s %s referrers %v, want %v", n, d.Platform, refs, want)
			}
		}
		// Each provenance names the platforms its subject was built for.
		for _, d := range append([]publish.PlatformDigest{{Platform: strings.Join(platforms, " "), Digest: index}}, listed...) {
			if got := attestedPlatforms(w, v.repo(n)+"@"+d.Digest); got != d.Platform {
				t.Errorf("%s@%s: provenance names platforms %q, want %q", n, d.Digest, got, d.Platform)
			}
		}
	}
	// Each platform image is scanned; the verdict covers all of them.
	scanned := slices.Sorted(slices.Values(res.Scanned))
	if want := []string{"filer (linux/amd64)", "filer (linux/arm64)", "taskmaster (linux/amd64)", "taskmaster (linux/arm64)"}; !reflect.DeepEqual(scanned, want) {
		t.Errorf("scanned %v, want %v", scanned, want)
	}
	var trivyTargets []string
	for _, x := range v.e.Graph().Execs() {
		if len(x.Args) > 1 && x.Args[0] == "trivy" && x.Args[1] == "image" {
			trivyTargets = append(trivyTargets, x.Args[len(x.Args)-1])
		}
	}
	for _, n := range imageNames {
		for _, pd := range platformDigests(t, w, n) {
			if !slices.Contains(trivyTargets, v.repo(n)+"@"+pd.Digest) {
				t.Errorf("%s (%s) was not scanned by digest; trivy targets %v", n, pd.Platform, trivyTargets)
			}
		}
	}
	v.noSecrets(t, jsonOf(t, res))

	// A user verifies what was published, by tag: the index digest.
	root := v.c.Host().File(w.Sigstore.TrustedRoot)
	got, err := publish.Verify(ctx, "verify", v.sign.Tool, v.target.RegistryTool, v.repo("filer")+":dev", publishtest.IdentityRegexp, publishtest.Issuer, root)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if got.Digest != res.Digests["filer"] || len(got.Verified) != 3 {
		t.Errorf("verify = %+v", got)
	}
	// And the image a runtime on arm64 pulls, by its own digest.
	arm := platformDigests(t, w, "filer")[1]
	got, err = publish.Verify(ctx, "verify", v.sign.Tool, v.target.RegistryTool, v.repo("filer")+"@"+arm.Digest, publishtest.IdentityRegexp, publishtest.Issuer, root, publish.WithRequiredSBOM())
	if err != nil || got.Digest != arm.Digest || len(got.Verified) != 3 {
		t.Errorf("verify of the arm64 image = %+v, %v", got, err)
	}

	// A re-run writes nothing new and attests nothing twice; it reuses the index that
	// sha-<commit> names, and still scans each of its platform images.
	writes := len(w.Registry.Writes())
	again := newPlatformEnv(t, w)
	rerun, err := publish.PublishBranch(ctx, again.dev, sha)
	if err != nil {
		t.Fatalf("re-run: %v", err)
	}
	if scanned := slices.Sorted(slices.Values(rerun.Scanned)); !reflect.DeepEqual(scanned, []string{"filer (linux/amd64)", "filer (linux/arm64)", "taskmaster (linux/amd64)", "taskmaster (linux/arm64)"}) {
		t.Errorf("the re-run scanned %v", scanned)
	}
	if extra := w.Registry.Writes()[writes:]; len(extra) != 0 {
		t.Errorf("the re-run wrote %v", extra)
	}
}

func TestPushRefusesAPlatformImageForAnotherPlatform(t *testing.T) {
	w := publishtest.NewWorld(t)
	v := newPlatformEnv(t, w)
	// The arm64 build of filer comes out as an amd64 image.
	v.e.OnExport(engine.ExportRule{Kind: "Container", ChainContains: publishtest.PlatformBuild("filer", "linux/arm64"), Write: func(path string) error {
		return w.WriteImage(w.PlatformImage(t, "filer", "linux/amd64"), path)
	}})
	_, err := publish.PushByDigest(context.Background(), "push-by-digest", v.images, v.target)
	if err == nil || !strings.Contains(err.Error(), `the image built for linux/arm64 says it is for "linux/amd64"`) {
		t.Fatalf("err = %v, want the platform mismatch", err)
	}
	if tags := w.Registry.Tags(t, v.repo("filer")); len(tags) != 0 {
		t.Errorf("filer tagged: %v", tags)
	}
}

// attestedPlatforms are the --platform values of the attest run for ref, space-separated.
func attestedPlatforms(w *publishtest.World, ref string) string {
	for _, run := range w.Runs() {
		if len(run) < 2 || run[1] != "attest" || !slices.Contains(run, ref) || slices.Contains(run, "--sbom") {
			continue
		}
		var got []string
		for i, a := range run {
			if a == "--platform" && i+1 < len(run) {
				got = append(got, run[i+1])
			}
		}
		return strings.Join(got, " ")
	}
	return "(no attest run)"
}

// Verify with WithPlatforms fails when a platform image lacks what its index has: a runtime
// pulling that platform would find no signature.
func TestVerifyRequiresEachPlatformImage(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newPlatformEnv(t, w)
	pushed, err := publish.PushByDigest(ctx, "push-by-digest", v.images[:1], v.target)
	if err != nil {
		t.Fatal(err)
	}
	indexOnly := []publish.Pushed{{Name: pushed[0].Name, Repository: pushed[0].Repository, Digest: pushed[0].Digest}}
	if _, err := publish.Attest(ctx, "attest", v.sign, v.target, indexOnly, v.images); err != nil {
		t.Fatal(err)
	}
	if _, err := publish.Sign(ctx, "sign", v.sign, v.target, indexOnly); err != nil {
		t.Fatal(err)
	}
	root := v.c.Host().File(w.Sigstore.TrustedRoot)
	if _, err := publish.Verify(ctx, "verify", v.sign.Tool, v.target.RegistryTool, pushed[0].Ref(), publishtest.IdentityRegexp, publishtest.Issuer, root); err != nil {
		t.Fatalf("the index alone: %v", err)
	}
	_, err = publish.Verify(ctx, "verify", v.sign.Tool, v.target.RegistryTool, pushed[0].Ref(), publishtest.IdentityRegexp, publishtest.Issuer, root, publish.WithPlatforms())
	if err == nil || !strings.Contains(err.Error(), "its linux/amd64 image") {
		t.Errorf("verify with unsigned platform images = %v, want a failure naming linux/amd64", err)
	}
}
