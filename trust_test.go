package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"dagger/shipyard/internal/modsurface"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/testkit/githubsim"
	"dagger/shipyard/internal/testkit/pypisim"
	"dagger/shipyard/internal/testkit/teskrepo"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/models/modelrelease/modelreleasetest"
	"dagger/shipyard/models/versions/versionstest"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// overridingPins replace every image Shipyard pins: a caller's own images, which may write
// anything into a volume they mount.
var overridingPins = func() []string {
	const d = "@sha256:9999999999999999999999999999999999999999999999999999999999999999"
	var out []string
	for _, n := range []string{"python-3.10", "python-3.11", "python-3.12", "python-3.13", "uv", "trivy", "k3s", "go"} {
		out = append(out, n+"=mirror.example/"+n+":own"+d)
	}
	return out
}()

// trustRun calls one function of the module on a fresh engine double with the given --pin
// values and returns the cache volumes its graph mounted. none says why a function mounts
// no cache volume: with a call, the test checks that it mounts none; without one, it runs
// no container at all.
type trustRun struct {
	run  func(t *testing.T, pin []string) []string
	none string
	// shared names rows whose functions one call chain runs together (the release jobs),
	// called once per pin for all of them.
	shared string
}

// teskCall runs a tesk-core CI function on the fixture tree (with a Git history).
func teskCall(call func(ctx context.Context, m *Shipyard) error) trustRun {
	return trustRun{run: func(t *testing.T, pin []string) []string {
		m, e := newModule(t, map[string]string{".git/HEAD": "ref: refs/heads/feature\n"})
		e.ExpectExecs(ciExecs...)
		// patch-coverage's diff and report: nothing changed, nothing measured.
		e.OnExec(engine.ExecRule{ArgsContain: "diff --unified=0"})
		e.OnFile(engine.FileRule{Path: "coverage.xml", Contents: `<?xml version="1.0" ?><coverage version="7.6.1"><sources><source>/src/src</source></sources><packages/></coverage>`})
		cleanScans(e)
		m.Pin = pin
		if err := call(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		return e.Graph().CacheVolumes()
	}}
}

// modelCall runs a Cloudcoil function on the generator repository (gen) or a generated
// model repository.
func modelCall(gen bool, call func(ctx context.Context, t *testing.T, m *Shipyard) error) trustRun {
	return trustRun{run: func(t *testing.T, pin []string) []string {
		var m *Shipyard
		var e *engine.Engine
		if gen {
			m, e = modelModule(t, cloudcoilRepo(t))
			modelreleasetest.RenderOneFolder(e)
			// What update-repos reads back of a generation: the rendered repository's archive.
			modelreleasetest.ServeGenerated(t, e, "", fixtures.ModelRepoFiles(t, nil), nil)
		} else {
			m, e = modelModule(t, fixtures.ModelRepo(t, nil))
		}
		files := fixtures.ModelRepoFiles(t, nil)
		dist := fixtures.BuildDistributions(t, files, nil)
		modelreleasetest.ServeDistributions(e, "", dist)
		m.Pin = pin
		if err := call(context.Background(), t, m); err != nil {
			t.Fatal(err)
		}
		return e.Graph().CacheVolumes()
	}}
}

// publishCall runs an image step of tesk-core on a world where push-by-digest has run.
func publishCall(call func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, digests string) error) trustRun {
	return trustRun{run: func(t *testing.T, pin []string) []string {
		ctx := context.Background()
		w := publishtest.NewWorld(t)
		push, _ := publishModule(t, w, true)
		digests, err := push.PushByDigest(ctx, "", "")
		if err != nil {
			t.Fatal(err)
		}
		m, e := publishModule(t, w, true)
		m.Pin = pin
		if err := call(ctx, t, w, m, digests); err != nil {
			t.Fatal(err)
		}
		return e.Graph().CacheVolumes()
	}}
}

// releaseJobs runs the release's four jobs one after another on one engine, as a release
// workflow run does on a persistent runner.
func releaseJobs(t *testing.T, pin []string) []string {
	ctx := context.Background()
	w := newReleaseWorld(t)
	w.tag(t, "v0.11.0rc1")
	w.m.Pin = pin
	pushed, err := w.m.ReleasePush(ctx, "v0.11.0rc1", "ci.yml", "", teskrepo.GitURL)
	if err != nil {
		t.Fatal(err)
	}
	scanned, err := w.m.ReleaseScan(ctx, pushed, teskrepo.GitURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.signing(w.oidc, nil, nil).ReleasePublish(ctx, scanned, pushed, "json", "ci.yml", teskrepo.GitURL); err != nil {
		t.Fatal(err)
	}
	if _, err := w.m.ReleasePublishRelease(ctx, "v0.11.0rc1", "text", "ci.yml"); err != nil {
		t.Fatal(err)
	}
	return w.e.Graph().CacheVolumes()
}

// releaseSplitJobs runs the push jobs of a release built per platform, then the assemble
// job, through the module.
func releaseSplitJobs(t *testing.T, pin []string) []string {
	w := newReleaseWorld(t)
	w.tag(t, "v0.11.0rc1")
	w.m.Pin = pin
	if _, err := w.pushSplit(context.Background(), "v0.11.0rc1"); err != nil {
		t.Fatal(err)
	}
	return w.e.Graph().CacheVolumes()
}

// mountsNone is a call of a function that must mount no cache volume, and why.
func mountsNone(why string, r trustRun) trustRun { r.none = why; return r }

var trustRuns = map[string]trustRun{
	"pr-title":       {none: "checks its argument"},
	"release-plan":   {none: "reads GitHub"},
	"doctor":         {none: "reads GitHub"},
	"with-sigstore":  {none: "returns settings"},
	"with-platforms": {none: "returns settings"},
	"check-extras":   {none: "reads PyPI"},
	"lint":           teskCall(func(ctx context.Context, m *Shipyard) error { _, err := m.Lint(ctx); return err }),
	"test": teskCall(func(ctx context.Context, m *Shipyard) error {
		_, err := m.Test(ctx, []string{"3.12"}, nil, "all")
		return err
	}),
	"test-check":      teskCall(func(ctx context.Context, m *Shipyard) error { _, err := m.TestCheck(ctx); return err }),
	"python-versions": mountsNone("reads pyproject.toml", teskCall(func(ctx context.Context, m *Shipyard) error { _, err := m.PythonVersions(ctx); return err })),
	"patch-coverage": teskCall(func(ctx context.Context, m *Shipyard) error {
		_, err := m.PatchCoverage(ctx, "origin/dev", "3.12")
		return err
	}),
	"docs":       teskCall(func(ctx context.Context, m *Shipyard) error { _, err := m.Docs(ctx); return err }),
	"image":      mountsNone("a Dockerfile build mounts no cache", teskCall(func(ctx context.Context, m *Shipyard) error { _, err := m.Image(ctx, "filer", ""); return err })),
	"images":     mountsNone("Dockerfile builds mount no cache", teskCall(func(ctx context.Context, m *Shipyard) error { _, err := m.Images(ctx, ""); return err })),
	"scan":       teskCall(func(ctx context.Context, m *Shipyard) error { _, err := m.Scan(ctx, "", ""); return err }),
	"scan-check": teskCall(func(ctx context.Context, m *Shipyard) error { _, err := m.ScanCheck(ctx); return err }),
	"end-to-end": teskCall(func(ctx context.Context, m *Shipyard) error { _, err := m.EndToEnd(ctx, "default"); return err }),
	"ci": teskCall(func(ctx context.Context, m *Shipyard) error {
		_, err := m.Ci(ctx, "fix: retry uploads", nil, nil, "all", "default")
		return err
	}),

	"gen-repo": modelCall(true, func(ctx context.Context, t *testing.T, m *Shipyard) error {
		_, err := m.GenRepo(ctx, "velero", false)
		return err
	}),
	"validate-models": modelCall(true, func(ctx context.Context, t *testing.T, m *Shipyard) error {
		_, err := m.ValidateModels(ctx, "", []string{"models/kyverno/cookiecutter.yaml"}, "", false)
		return err
	}),
	"model-integrations": mountsNone("reads upstreams.json", modelCall(true, func(ctx context.Context, t *testing.T, m *Shipyard) error {
		_, err := m.ModelIntegrations(ctx)
		return err
	})),
	"check-artifacts": modelCall(false, func(ctx context.Context, t *testing.T, m *Shipyard) error {
		_, err := m.CheckArtifacts(ctx)
		return err
	}),
	"model-ci":    modelCall(false, func(ctx context.Context, t *testing.T, m *Shipyard) error { _, err := m.ModelCi(ctx, nil); return err }),
	"model-lines": mountsNone("reads pyproject.toml", modelCall(false, func(ctx context.Context, t *testing.T, m *Shipyard) error { _, err := m.ModelLines(ctx); return err })),
	"propose-upstreams": mountsNone("reads cookiecutter.yaml files", modelCall(true, func(ctx context.Context, t *testing.T, m *Shipyard) error {
		_, err := m.ProposeUpstreams(ctx, "file")
		return err
	})),
	"model-template-patch": mountsNone("a file built into the module", modelCall(false, func(ctx context.Context, t *testing.T, m *Shipyard) error {
		_, err := m.ModelTemplatePatch(ctx)
		return err
	})),
	"publish-check": modelCall(false, func(ctx context.Context, t *testing.T, m *Shipyard) error {
		_, err := m.PublishCheck(ctx, "1.17.1.0")
		return err
	}),
	"model-release": modelCall(false, func(ctx context.Context, t *testing.T, m *Shipyard) error {
		sim := githubsim.New(t)
		sim.AddToken(modelToken, githubsim.Token{PushAccess: true})
		repo := sim.AddRepo("cloudcoil", "models-cert-manager")
		mainSHA := repo.CommitOnBranch("main", "Update generated models", fixtures.ModelRepoFiles(t, nil))
		m.Repo, m.GithubAPI = "cloudcoil/models-cert-manager", sim.URL+"/"
		_, err := m.ModelRelease(ctx, "1.17.1", false, false, false, mainSHA, pypisim.New(t).URL())
		return err
	}),
	"update-repos": modelCall(true, func(ctx context.Context, t *testing.T, m *Shipyard) error {
		sim := githubsim.New(t)
		sim.AddToken(modelToken, githubsim.Token{PushAccess: true})
		sim.AddRepo("cloudcoil", "models-keda").CommitOnBranch("main", "Initial generation", map[string]string{"README.md": "old\n"})
		// update-repos pushes only Cloudcoil main's head (or a descendant of the last one).
		source := sim.AddRepo("cloudcoil", "cloudcoil").CommitOnBranch("main", "Merge the update", map[string]string{"README.md": "Cloudcoil\n"})
		m.GithubAPI, m.Repo = sim.URL+"/", "cloudcoil/cloudcoil"
		_, err := m.UpdateRepos(ctx, []string{"keda"}, "cloudcoil", source, false)
		return err
	}),
	"model-versions": {run: func(t *testing.T, pin []string) []string {
		w := versionstest.New(t)
		m, e := modelVersionsModule(t, w, versionstest.Token)
		m.Pin = pin
		if _, err := m.ModelVersions(context.Background(), true, "text", "main", w.PyPI.URL()); err != nil {
			t.Fatal(err)
		}
		return e.Graph().CacheVolumes()
	}},

	// The registry command's build mounts the Go caches of the function's level.
	"push-by-digest": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, _ string) error {
		_, err := m.PushByDigest(ctx, "", "")
		return err
	}),
	"push-platform-by-digest": {run: devSplitJobs, shared: "dev split jobs"},
	"assemble-index":          {run: devSplitJobs, shared: "dev split jobs"},
	"scan-digests": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, digests string) error {
		_, err := m.ScanDigests(ctx, nil, digests)
		return err
	}),
	"attest": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, digests string) error {
		_, err := withSigstore(m, w, nil).Attest(ctx, digests, devSHA, "refs/heads/dev", "")
		return err
	}),
	"sign": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, digests string) error {
		_, err := withSigstore(m, w, nil).Sign(ctx, digests)
		return err
	}),
	"tag-images": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, digests string) error {
		_, err := m.TagImages(ctx, digests, []string{"sha-" + devSHA})
		return err
	}),
	"publish-dev": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, _ string) error {
		_, err := withSigstore(m, w, nil).PublishDev(ctx, devSHA)
		return err
	}),
	"verify": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, digests string) error {
		publisher, _ := publishModule(t, w, true)
		if _, err := withSigstore(publisher, w, nil).PublishDev(ctx, devSHA); err != nil {
			return err
		}
		root := m.engine().Host().File(w.Sigstore.TrustedRoot)
		_, err := m.Verify(ctx, repoOf(w, "filer")+":dev", publishtest.IdentityRegexp, publishtest.Issuer, root, 1, "text", false)
		return err
	}),
	"scan-published": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, digests string) error {
		if _, err := m.TagImages(ctx, digests, []string{"sha-" + devSHA}); err != nil {
			return err
		}
		_, err := m.ScanPublished(ctx, []string{repoOf(w, "filer") + ":sha-" + devSHA}, false)
		return err
	}),

	"release":                 {run: releaseRun},
	"release-push":            {run: releaseJobs, shared: "release jobs"},
	"release-push-platform":   {run: releaseSplitJobs, shared: "release split jobs"},
	"release-assemble":        {run: releaseSplitJobs, shared: "release split jobs"},
	"release-scan":            {run: releaseJobs, shared: "release jobs"},
	"release-publish":         {run: releaseJobs, shared: "release jobs"},
	"release-publish-release": {run: releaseJobs, shared: "release jobs"},
}

func releaseRun(t *testing.T, pin []string) []string {
	w := newReleaseWorld(t)
	w.tag(t, "v0.11.0")
	w.m.Pin = pin
	if _, err := w.release(context.Background(), "v0.11.0", false, "text"); err != nil {
		t.Fatal(err)
	}
	return w.e.Graph().CacheVolumes()
}

// TestTrustLevelsKeepCachesApart is the trust table and the per-pin rule, for every function
// of the module, on the recorded graphs of real calls:
//   - every function has a trust level (internal/trust) and a row here;
//   - no cache volume mounted by a function that runs at the pull-request level is mounted
//     by one that pushes, signs, tags, releases or publishes (or feeds one);
//   - a call with overriding --pin images mounts no volume that any default-pin call of a
//     release-level function mounts, and no volume of the default pins at its own level.
func TestTrustLevelsKeepCachesApart(t *testing.T) {
	t.Parallel()
	s, err := modsurface.FromSource(".", "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range s.Names() {
		if _, err := trust.Of(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if _, ok := trustRuns[name]; !ok {
			t.Errorf("%s: no row in trustRuns; add a call that shows its cache volumes", name)
		}
	}
	for _, name := range trust.Functions() {
		if _, ok := s.Functions[name]; !ok {
			t.Errorf("the trust table names %s, which the module does not declare", name)
		}
	}

	type mounts struct{ def, pinned []string }
	got := map[string]mounts{}
	var mu sync.Mutex
	record := func(name string, pinned bool, vols []string) {
		mu.Lock()
		defer mu.Unlock()
		mt := got[name]
		if pinned {
			mt.pinned = vols
		} else {
			mt.def = vols
		}
		got[name] = mt
	}
	// Every call on its own engine double, concurrently; the group returns when all did.
	t.Run("calls", func(t *testing.T) {
		done := map[string]bool{}
		for _, name := range slices.Sorted(maps.Keys(trustRuns)) {
			r := trustRuns[name]
			if r.run == nil || done[r.shared] {
				continue
			}
			if r.shared != "" {
				done[r.shared] = true
			}
			for _, pinned := range []bool{false, true} {
				label, pin := "/default-pins", []string(nil)
				if pinned {
					label, pin = "/own-pins", overridingPins
				}
				t.Run(name+label, func(t *testing.T) {
					t.Parallel()
					vols := r.run(t, pin)
					for _, other := range slices.Sorted(maps.Keys(trustRuns)) {
						if other == name || (r.shared != "" && trustRuns[other].shared == r.shared) {
							record(other, pinned, vols)
						}
					}
				})
			}
		}
	})
	for _, name := range slices.Sorted(maps.Keys(trustRuns)) {
		r := trustRuns[name]
		if r.run == nil {
			if r.none == "" {
				t.Errorf("%s: neither a call nor a reason it mounts nothing", name)
			}
			continue
		}
		mt := got[name]
		switch {
		case r.none == "" && len(mt.def) == 0:
			t.Errorf("%s mounted no cache volume: say why in trustRuns (mountsNone)", name)
		case r.none != "" && len(mt.def)+len(mt.pinned) > 0:
			t.Errorf("%s mounts %v, though it %s", name, append(slices.Clone(mt.def), mt.pinned...), r.none)
		}
	}

	level := func(name string) trust.Level { l, _ := trust.Of(name); return l }
	releaseVolumes := map[string][]string{} // volume → release-level functions mounting it with the default pins
	for name, mt := range got {
		if level(name) == trust.Release {
			for _, v := range mt.def {
				releaseVolumes[v] = append(releaseVolumes[v], name)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(got)) {
		mt := got[name]
		for _, v := range mt.def {
			if level(name) == trust.Untrusted && len(releaseVolumes[v]) > 0 {
				t.Errorf("cache volume %q is mounted by %s (pull-request level) and by %v (release level)", v, name, releaseVolumes[v])
			}
		}
		for _, v := range mt.pinned {
			if len(releaseVolumes[v]) > 0 {
				t.Errorf("%s with overriding --pin images mounts %q, which %v mount with the default pins", name, v, releaseVolumes[v])
			}
			if slices.Contains(mt.def, v) {
				t.Errorf("%s mounts %q both with the default pins and with overriding ones", name, v)
			}
		}
		want := "-" + level(name).String() + "-"
		for _, v := range append(slices.Clone(mt.def), mt.pinned...) {
			if !strings.Contains(v, want) {
				t.Errorf("%s (%s level) mounts %q, not a volume of its level", name, level(name), v)
			}
		}
	}
	t.Log(fmt.Sprint(got))
}
