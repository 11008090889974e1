package release

import (
	"context"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/internal/testkit/teskrepo"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// TestDryRunPublishesNothing: a dry run builds, checks the version, scans the built
// containers and composes the release, and prints exactly what a real run then publishes.
func TestDryRunPublishesNothing(t *testing.T) {
	w := newWorld(t, teskrepo.Options{})
	w.repo.Release("v0.11.0")
	dry, err := w.run("v0.11.0", Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := w.registryWrites(); n != 0 {
		t.Errorf("a dry run wrote to the registry %d time(s)", n)
	}
	if w.ghWrites() != 0 {
		t.Error("a dry run changed GitHub")
	}
	if len(w.e.Graph().ExecsWith("supplychain")) != 0 {
		t.Error("a dry run attested or signed")
	}
	// The source was fetched by Dagger's git API: the tag resolved, the tree by its commit.
	refs := w.e.Graph().GitRefs()
	commit := w.repo.GH.Tag("v0.11.0")
	if !slices.Contains(refs, engine.GitRef{URL: teskrepo.GitURL, Kind: "tag", Name: "v0.11.0"}) ||
		!slices.Contains(refs, engine.GitRef{URL: teskrepo.GitURL, Kind: "commit", Name: commit}) {
		t.Errorf("git refs %+v", refs)
	}
	// The scan read the built containers, not references.
	if scans := w.e.Graph().ExecsWith("trivy image"); len(scans) != 2 || !strings.Contains(strings.Join(scans[0].Args, " "), "--input") {
		t.Errorf("scans %v", scans)
	}
	text := dry.Text()
	for _, want := range []string{"dry run: nothing was pushed, tagged or created", "tags:        0.11.0, latest", "scan:        passed", `GitHub release "v0.11.0" (pre-release yes, make_latest false): planned`, "    | ## Commits"} {
		if !strings.Contains(text, want) {
			t.Errorf("dry-run report lacks %q:\n%s", want, text)
		}
	}

	w.freshEngine()
	real, err := w.run("v0.11.0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, img := range dry.Images {
		got := real.Images[i]
		if img.Ref() != got.Ref() || strings.Join(img.Tags, ",") != strings.Join(got.Tags, ",") || img.Digest == "" {
			t.Errorf("dry run said %s %v, the release published %s %v", img.Ref(), img.Tags, got.Ref(), got.Tags)
		}
	}
	if dry.Release.Body != real.Release.Body || dry.Release.Title != real.Release.Title || dry.Release.MakeLatest != real.Release.MakeLatest {
		t.Errorf("dry-run release %+v, published %+v", dry.Release, real.Release)
	}
	js := jsonReport(t, real)
	if js["tag"] != "v0.11.0" || js["dry_run"] != false || len(js["images"].([]any)) != 2 {
		t.Errorf("JSON report %v", js)
	}
	w.assertNoSecrets(text, real.Text())
}

// TestWorkflowJobs runs the release as the workflow's separate jobs, passing the handoff
// JSON between them, and checks that each job refuses what the previous one did not do.
func TestWorkflowJobs(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, teskrepo.Options{})
	w.repo.Release("v0.11.0rc1")
	w.serve("v0.11.0rc1")
	cfg := w.config()

	plan, err := CheckGates(ctx, cfg, "v0.11.0rc1")
	if err != nil {
		t.Fatal(err)
	}
	h, err := PushJob(ctx, cfg, "v0.11.0rc1")
	if err != nil {
		t.Fatal(err)
	}
	out, err := h.JSON()
	if err != nil || strings.Count(out, "\n") != 1 {
		t.Fatalf("handoff %q, %v", out, err)
	}
	pushedOnly, err := ParseHandoff(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PublishJob(ctx, cfg, pushedOnly, pushedOnly); flow.FailedStep(err) != StepCheckHandoff || !strings.Contains(err.Error(), "has no passing scan") {
		t.Fatalf("publish without a scan: %v", err)
	}

	// The scan job gets no credential of any kind: the registry command reads the
	// handoff's indexes anonymously.
	scanEngine := engine.New(t, engine.StrictExecs())
	scanEngine.ExpectExecs(append(scanExecs, flowexecs.RegistryTool)...)
	w.e = scanEngine
	w.c = scanEngine.Client(ctx)
	w.pub.Install(t, scanEngine)
	for _, n := range teskImages {
		scanEngine.OnFile(engine.FileRule{Path: "/out/" + n + ".json", Contents: `{"SchemaVersion": 2, "Results": []}`})
	}
	w.serve("v0.11.0rc1")
	scanCfg := Config{Flow: "release-scan", Client: w.c, Repo: teskrepo.FullName, GitURL: teskrepo.GitURL,
		Images: ImageConfig{Target: publish.Target{
			RegistryTool: publish.BuildRegistryTool(w.c, w.c.Host().Directory(publishtest.SupplychainSource(t)), pins.DefaultPins(), trust.ReleaseAt("test", trust.SecretOf("test-credential"))),
		}}}
	scanned, dir, err := ScanJob(ctx, scanCfg, pushedOnly)
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := dir.Entries(ctx); !strings.Contains(strings.Join(entries, ","), "summary.txt") {
		t.Errorf("scan reports %v", entries)
	}
	if len(scanEngine.Graph().Secrets()) != 0 {
		t.Errorf("the scan job's graph holds secrets: %v", scanEngine.Graph().Secrets())
	}
	if len(scanned.Scans) != 2 || !scanned.Scans[0].Passed || scanned.Scans[0].Digest == "" {
		t.Fatalf("scans %+v", scanned.Scans)
	}

	w.freshEngine()
	w.serve("v0.11.0rc1")
	cfg = w.config()
	// A handoff of another tag is refused.
	other := scanned
	other.Tag, other.Version = "v0.11.0rc2", "0.11.0rc2"
	if _, err := PublishJob(ctx, cfg, other, pushedOnly); err == nil {
		t.Fatal("a handoff of another tag was accepted")
	}
	text, _ := scanned.JSON()
	scanned, err = ParseHandoff(text)
	if err != nil {
		t.Fatal(err)
	}
	// The scan job's output must carry exactly the push job's digests and repositories.
	for name, tamper := range map[string]func(h *Handoff){
		"another digest": func(h *Handoff) { h.Images[0].Digest = "sha256:" + strings.Repeat("d", 64) },
		"swapped repositories": func(h *Handoff) {
			h.Images[0].Repository, h.Images[1].Repository = h.Images[1].Repository, h.Images[0].Repository
		},
	} {
		bad := scanned
		bad.Images = slices.Clone(scanned.Images)
		bad.Scans = nil
		tamper(&bad)
		for _, img := range bad.Images {
			bad.Scans = append(bad.Scans, ScanRecord{Name: img.Name, Digest: img.Digest, Passed: true})
		}
		if _, err := PublishJob(ctx, cfg, bad, pushedOnly); flow.FailedStep(err) != StepCheckHandoff || !strings.Contains(err.Error(), "is not what the push job pushed") {
			t.Errorf("%s: %v", name, err)
		}
		// Even with a push handoff tampered the same way, a name is tied to its repository:
		// the plan says which, before anything is built.
		if name == "swapped repositories" {
			if _, err := PublishJob(ctx, cfg, bad, bad); flow.FailedStep(err) != StepCheckHandoff || !strings.Contains(err.Error(), "but the release publishes it to") {
				t.Errorf("%s, both handoffs: %v", name, err)
			}
		}
	}
	rep, err := PublishJob(ctx, cfg, scanned, pushedOnly)
	if err != nil {
		t.Fatal(err)
	}
	// The publish job (a fresh runner) works from the pushed digests: it builds no image.
	if builds := w.e.Graph().Builds(); len(builds) != 0 {
		t.Errorf("the publish job built %d image(s) again", len(builds))
	}
	for _, img := range rep.Images {
		if strings.Join(img.Tags, ",") != plan.Version || img.Signature == "" || img.Attestation == "" || !img.Scan.Passed {
			t.Errorf("image %+v", img)
		}
	}
	rel, err := ReleaseJob(ctx, cfg, "v0.11.0rc1")
	if err != nil || rel.Outcome != "created" || !rel.Prerelease || rel.MakeLatest != "false" {
		t.Fatalf("release %+v, %v", rel, err)
	}
	again, err := ReleaseJob(ctx, cfg, "v0.11.0rc1")
	if err != nil || again.Outcome != "kept" {
		t.Fatalf("release again %+v, %v", again, err)
	}
	if len(w.releasesOf("v0.11.0rc1")) != 1 {
		t.Error("two releases")
	}
}

// TestMovedTagStopsTheBuild: what Dagger fetches for the tag is not the commit the gates
// checked (the tag was replaced, or the URL is another repository): nothing is built.
func TestMovedTagStopsTheBuild(t *testing.T) {
	w := newWorld(t, teskrepo.Options{})
	w.repo.Release("v0.11.0")
	w.serve("v0.11.0")
	w.e.OnField(engine.FieldRule{Type: "GitRef", Field: "commit", ChainContains: teskrepo.TagChain("v0.11.0"), Value: strings.Repeat("ab", 20)})
	w.program = nil
	_, err := Run(context.Background(), w.config(), "v0.11.0", Options{})
	if flow.FailedStep(err) != StepSource || !strings.Contains(err.Error(), "but release-plan checked commit") {
		t.Fatalf("err = %v", err)
	}
	if len(w.e.Graph().Builds()) != 0 || w.registryWrites() != 0 {
		t.Error("something was built or pushed")
	}
}
