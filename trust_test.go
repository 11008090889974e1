package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/demoworld/pypisim"
	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/modsurface"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/testkit/teskrepo"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/models/modeltest"
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

// caller is who makes a call: the project's job, with every credential the function writes
// with, or a pull request's job on a shared engine, which holds none of them.
type caller int

const (
	// credentialed is the project's own job.
	credentialed caller = iota
	// withoutCredentials is the call with every credential removed.
	withoutCredentials
	// ownServers keeps the credentials but points every server they act at (the GitHub
	// API, the registry, Fulcio and Rekor) at another address of the same server: to the
	// module, a server of the caller's choosing, which accepts any token.
	ownServers
)

func (c caller) String() string {
	return [...]string{"credentialed", "without-credentials", "own-servers"}[c]
}

// callVariant is one way the trust table calls a function: with the default pins or the
// caller's own, by one caller.
type callVariant struct {
	pin []string
	as  caller
}

// on is the module m as v calls it, to apply right before the function is called.
func (v callVariant) on(m *Shipyard) *Shipyard {
	c := *m
	c.Pin = v.pin
	switch v.as {
	case withoutCredentials:
		c.GithubToken, c.RegistryPassword = nil, nil
		c.OidcToken, c.ActionsIDTokenRequestURL, c.ActionsIDTokenRequestToken = nil, nil, nil
	case ownServers:
		own := func(s string) string { return strings.Replace(s, "127.0.0.1", "localhost", 1) }
		c.GithubAPI, c.Registry, c.FulcioURL, c.RekorURL = own(c.GithubAPI), own(c.Registry), own(c.FulcioURL), own(c.RekorURL)
	}
	return &c
}

// ok says whether a call succeeded, and fails the test when a credentialed one did not: a
// hostile call may fail (no password to push with), and its mounts until then count.
func (v callVariant) ok(t *testing.T, err error) bool {
	t.Helper()
	if err != nil && v.as == credentialed {
		t.Fatal(err)
	}
	if err != nil {
		t.Logf("%s: %v", v.as, err)
	}
	return err == nil
}

// trustRun calls one function of the module on fresh engine doubles as a variant says and
// returns the cache volumes its graphs mounted. none says why a function mounts no cache
// volume: with a call, the test checks that it mounts none; without one, it runs no
// container at all.
type trustRun struct {
	run  func(t *testing.T, v callVariant) []string
	none string
	// chain, for the rows whose functions one call chain runs together (the release jobs),
	// runs them all once per variant and returns each one's volumes; shared names the chain.
	chain  func(t *testing.T, v callVariant) map[string][]string
	shared string
}

// chained is the row of a function that chain runs with others.
func chained(shared string, chain func(t *testing.T, v callVariant) map[string][]string) trustRun {
	return trustRun{chain: chain, shared: shared}
}

// buildOnly are the volumes that only the build of Shipyard's own commands mounts
// (trust.Level.BuildCacheVolumeName): no code of a caller's runs beside them, so they are
// keyed by the level's class, the Go image and the release level's seal, not by the rest
// of where the credentials act, and a call with servers of its own may share them (it
// holds the project's credentials). volumesOf holds every call to that.
var buildOnly = []string{"shipyard-go-mod-", "shipyard-go-build-"}

func isBuildOnly(volume string) bool {
	return slices.ContainsFunc(buildOnly, func(p string) bool { return strings.HasPrefix(volume, p) })
}

// volumesOf is every cache volume e's graphs mounted, after checking that a build-only
// volume is mounted by nothing but a go build of the module's own supplychain source.
func volumesOf(t *testing.T, e *engine.Engine) []string {
	t.Helper()
	for _, x := range e.Graph().Execs() {
		for _, m := range x.Mounts {
			if m.Kind != "withMountedCache" || !isBuildOnly(m.Cache) {
				continue
			}
			if len(x.Args) < 2 || x.Args[0] != "go" || x.Args[1] != "build" || x.Workdir != "/src" {
				t.Errorf("%q is mounted by %q in %s: only the build of Shipyard's commands may mount it", m.Cache, x.Args, x.Workdir)
			}
		}
	}
	return e.Graph().CacheVolumes()
}

// mountedSince is what e's graphs mounted that they had not before: the volumes of the
// job that ran in between, on an engine that earlier jobs used.
func mountedSince(t *testing.T, e *engine.Engine, before []string) []string {
	var out []string
	for _, v := range volumesOf(t, e) {
		if !slices.Contains(before, v) {
			out = append(out, v)
		}
	}
	return out
}

// teskCall runs a tesk-core CI function on the fixture tree (with a Git history).
func teskCall(call func(ctx context.Context, m *Shipyard) error) trustRun {
	return trustRun{run: func(t *testing.T, v callVariant) []string {
		m, e := newModule(t, map[string]string{".git/HEAD": "ref: refs/heads/feature\n"})
		e.ExpectExecs(ciExecs...)
		// patch-coverage's diff and report: nothing changed, nothing measured.
		e.OnExec(engine.ExecRule{ArgsContain: "diff --unified=0"})
		e.OnFile(engine.FileRule{Path: "coverage.xml", Contents: `<?xml version="1.0" ?><coverage version="7.6.1"><sources><source>/src/src</source></sources><packages/></coverage>`})
		cleanScans(e)
		v.ok(t, call(context.Background(), v.on(m)))
		return volumesOf(t, e)
	}}
}

// modelCall runs a Cloudcoil function on the generator repository (gen) or a generated
// model repository; call applies v to the module itself, once its world is set up.
func modelCall(gen bool, call func(ctx context.Context, t *testing.T, m *Shipyard, v callVariant) error) trustRun {
	return trustRun{run: func(t *testing.T, v callVariant) []string {
		var m *Shipyard
		var e *engine.Engine
		if gen {
			m, e = modelModule(t, cloudcoilRepo(t))
			modeltest.RenderOneFolder(e)
			// What update-repos reads back of a generation: the rendered repository's archive.
			modeltest.ServeGenerated(t, e, "", fixtures.ModelRepoFiles(t, nil), nil)
		} else {
			m, e = modelModule(t, fixtures.ModelRepo(t, nil))
		}
		files := fixtures.ModelRepoFiles(t, nil)
		dist := fixtures.BuildDistributions(t, files, nil)
		modeltest.ServeDistributions(e, "", dist)
		v.ok(t, call(context.Background(), t, m, v))
		return volumesOf(t, e)
	}}
}

// modelCallOn is modelCall for a call that needs nothing but the module as v calls it.
func modelCallOn(gen bool, call func(ctx context.Context, m *Shipyard) error) trustRun {
	return modelCall(gen, func(ctx context.Context, _ *testing.T, m *Shipyard, v callVariant) error { return call(ctx, v.on(m)) })
}

// publishCall runs an image step of tesk-core on a world where push-by-digest has run;
// call applies v to the module of the step.
func publishCall(call func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, v callVariant, digests string) error) trustRun {
	return trustRun{run: func(t *testing.T, v callVariant) []string {
		ctx := context.Background()
		w := publishtest.NewWorld(t)
		push, _ := publishModule(t, w, true)
		digests, err := push.PushByDigest(ctx, "", "")
		if err != nil {
			t.Fatal(err)
		}
		m, e := publishModule(t, w, true)
		v.ok(t, call(ctx, t, w, m, v, digests))
		return volumesOf(t, e)
	}}
}

// releaseJobs runs the release's four jobs one after another on one engine, as a release
// workflow run does on a persistent runner, each called as v says; each job's volumes are
// those it mounted first.
func releaseJobs(t *testing.T, v callVariant) map[string][]string {
	ctx := context.Background()
	w := newReleaseWorld(t)
	w.tag(t, "v0.11.0rc1")
	out := map[string][]string{}
	job := func(name string, run func() error) bool {
		before := w.e.Graph().CacheVolumes()
		err := run()
		out[name] = mountedSince(t, w.e, before)
		return v.ok(t, err)
	}
	var pushed, scanned string
	_ = job("release-push", func() (err error) {
		pushed, err = v.on(w.m).ReleasePush(ctx, "v0.11.0rc1", "ci.yml", "", teskrepo.GitURL)
		return err
	}) && job("release-scan", func() (err error) {
		scanned, err = v.on(w.m).ReleaseScan(ctx, pushed, teskrepo.GitURL)
		return err
	}) && job("release-publish", func() error {
		_, err := v.on(w.signing(w.oidc, nil, nil)).ReleasePublish(ctx, scanned, pushed, "json", "ci.yml", teskrepo.GitURL)
		return err
	}) && job("release-publish-release", func() error {
		_, err := v.on(w.m).ReleasePublishRelease(ctx, "v0.11.0rc1", "text", "ci.yml")
		return err
	})
	return out
}

// releaseSplitJobs runs the push jobs of a release built per platform, then the assemble
// job, through the module.
func releaseSplitJobs(t *testing.T, v callVariant) map[string][]string {
	ctx := context.Background()
	w := newReleaseWorld(t)
	w.tag(t, "v0.11.0rc1")
	m := v.on(w.m)
	out := map[string][]string{}
	var parts []string
	for _, p := range defaultPlatforms() {
		before := w.e.Graph().CacheVolumes()
		part, err := m.ReleasePushPlatform(ctx, "v0.11.0rc1", p, "ci.yml", "", teskrepo.GitURL)
		out["release-push-platform"] = append(out["release-push-platform"], mountedSince(t, w.e, before)...)
		if !v.ok(t, err) {
			return out
		}
		parts = append(parts, part)
	}
	before := w.e.Graph().CacheVolumes()
	_, err := m.ReleaseAssemble(ctx, "v0.11.0rc1", "["+strings.Join(parts, ",")+"]", "ci.yml")
	out["release-assemble"] = mountedSince(t, w.e, before)
	v.ok(t, err)
	return out
}

// releaseRun runs the whole release, or its dry run.
func releaseRun(dryRun bool) func(t *testing.T, v callVariant) []string {
	return func(t *testing.T, v callVariant) []string {
		w := newReleaseWorld(t)
		w.tag(t, "v0.11.0")
		_, err := v.on(w.signing(w.oidc, nil, nil)).Release(context.Background(), "v0.11.0", dryRun, "text", "ci.yml", "", teskrepo.GitURL)
		v.ok(t, err)
		return volumesOf(t, w.e)
	}
}

// modelRelease runs model-release on a model repository of the simulator, or its dry run.
func modelRelease(dryRun bool) trustRun {
	return modelCall(false, func(ctx context.Context, t *testing.T, m *Shipyard, v callVariant) error {
		sim := githubsim.New(t)
		sim.AddToken(modelToken, githubsim.Token{PushAccess: true})
		repo := sim.AddRepo("cloudcoil", "models-cert-manager")
		mainSHA := repo.CommitOnBranch("main", "Update generated models", fixtures.ModelRepoFiles(t, nil))
		m.Repo, m.GithubAPI = "cloudcoil/models-cert-manager", sim.URL+"/"
		_, err := v.on(m).ModelRelease(ctx, "1.17.1", false, dryRun, false, mainSHA, pypisim.New(t).URL())
		return err
	})
}

// updateRepos runs update-repos for one integration of the simulator's Cloudcoil, or its
// dry run.
func updateRepos(dryRun bool) trustRun {
	return modelCall(true, func(ctx context.Context, t *testing.T, m *Shipyard, v callVariant) error {
		sim := githubsim.New(t)
		sim.AddToken(modelToken, githubsim.Token{PushAccess: true})
		sim.AddRepo("cloudcoil", "models-keda").CommitOnBranch("main", "Initial generation", map[string]string{"README.md": "old\n"})
		// update-repos pushes only Cloudcoil main's head (or a descendant of the last one).
		source := sim.AddRepo("cloudcoil", "cloudcoil").CommitOnBranch("main", "Merge the update", map[string]string{"README.md": "Cloudcoil\n"})
		m.GithubAPI, m.Repo = sim.URL+"/", "cloudcoil/cloudcoil"
		_, err := v.on(m).UpdateRepos(ctx, []string{"keda"}, "cloudcoil", source, dryRun)
		return err
	})
}

// modelVersions runs model-versions, or its --check.
func modelVersions(check bool) func(t *testing.T, v callVariant) []string {
	return func(t *testing.T, v callVariant) []string {
		w := versionstest.New(t)
		m, e := modelVersionsModule(t, w, versionstest.Token)
		_, err := v.on(m).ModelVersions(context.Background(), check, "text", "main", w.PyPI.URL())
		v.ok(t, err)
		return volumesOf(t, e)
	}
}

// mountsNone is a call of a function that must mount no cache volume, and why.
func mountsNone(why string, r trustRun) trustRun { r.none = why; return r }

var trustRuns = map[string]trustRun{
	"pr-title":       {none: "checks its argument"},
	"release-plan":   {none: "reads GitHub"},
	"doctor":         {none: "reads GitHub and PyPI"},
	"with-sigstore":  {none: "returns settings"},
	"with-platforms": {none: "returns settings"},
	"check-extras":   {none: "reads PyPI"},
	"lint":           teskCall(func(ctx context.Context, m *Shipyard) error { _, err := m.Lint(ctx); return err }),
	"test": teskCall(func(ctx context.Context, m *Shipyard) error {
		_, err := m.Test(ctx, []string{"3.12"}, nil, "all")
		return err
	}),
	"test-check":         teskCall(func(ctx context.Context, m *Shipyard) error { _, err := m.TestCheck(ctx); return err }),
	"python-versions":    mountsNone("reads pyproject.toml", teskCall(func(ctx context.Context, m *Shipyard) error { _, err := m.PythonVersions(ctx); return err })),
	"next-release-check": mountsNone("reads CITATION.cff and the notes", teskCall(func(ctx context.Context, m *Shipyard) error { _, err := m.NextReleaseCheck(ctx); return err })),
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

	"gen-repo": modelCallOn(true, func(ctx context.Context, m *Shipyard) error {
		_, err := m.GenRepo(ctx, "velero", false)
		return err
	}),
	"validate-models": modelCallOn(true, func(ctx context.Context, m *Shipyard) error {
		_, err := m.ValidateModels(ctx, "", []string{"models/kyverno/cookiecutter.yaml"}, "", false)
		return err
	}),
	"model-integrations": mountsNone("reads upstreams.json", modelCallOn(true, func(ctx context.Context, m *Shipyard) error {
		_, err := m.ModelIntegrations(ctx)
		return err
	})),
	"check-artifacts": modelCallOn(false, func(ctx context.Context, m *Shipyard) error {
		_, err := m.CheckArtifacts(ctx)
		return err
	}),
	"model-ci":    modelCallOn(false, func(ctx context.Context, m *Shipyard) error { _, err := m.ModelCi(ctx, nil); return err }),
	"model-lines": mountsNone("reads pyproject.toml", modelCallOn(false, func(ctx context.Context, m *Shipyard) error { _, err := m.ModelLines(ctx); return err })),
	"propose-upstreams": mountsNone("reads cookiecutter.yaml files and PyPI", modelCall(true, func(ctx context.Context, t *testing.T, m *Shipyard, v callVariant) error {
		pypi := pypisim.New(t)
		pypi.AddRelease("cloudcoil", "0.5.3")
		_, err := v.on(m).ProposeUpstreams(ctx, "file", pypi.URL())
		return err
	})),
	"model-template-patch": mountsNone("reads the template's files", modelCallOn(true, func(ctx context.Context, m *Shipyard) error {
		_, err := m.ModelTemplatePatch(ctx)
		return err
	})),
	"publish-check": modelCallOn(false, func(ctx context.Context, m *Shipyard) error {
		_, err := m.PublishCheck(ctx, "1.17.1.0")
		return err
	}),
	"model-release":  modelRelease(false),
	"update-repos":   updateRepos(false),
	"model-versions": {run: modelVersions(false)},

	// The registry command's build mounts the Go caches of the call's level.
	"push-by-digest": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, v callVariant, _ string) error {
		_, err := v.on(m).PushByDigest(ctx, "", "")
		return err
	}),
	"push-platform-by-digest": chained("dev split jobs", devSplitJobs),
	"assemble-index":          chained("dev split jobs", devSplitJobs),
	"scan-digests": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, v callVariant, digests string) error {
		_, err := v.on(m).ScanDigests(ctx, nil, digests)
		return err
	}),
	"attest": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, v callVariant, digests string) error {
		_, err := v.on(withSigstore(m, w, nil)).Attest(ctx, digests, devSHA, "refs/heads/dev", "")
		return err
	}),
	"sign": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, v callVariant, digests string) error {
		_, err := v.on(withSigstore(m, w, nil)).Sign(ctx, digests)
		return err
	}),
	"tag-images": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, v callVariant, digests string) error {
		_, err := v.on(m).TagImages(ctx, digests, []string{"sha-" + devSHA})
		return err
	}),
	"publish-dev": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, v callVariant, _ string) error {
		_, err := v.on(withSigstore(m, w, nil)).PublishDev(ctx, devSHA)
		return err
	}),
	"verify": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, v callVariant, digests string) error {
		publisher, _ := publishModule(t, w, true)
		if _, err := withSigstore(publisher, w, nil).PublishDev(ctx, devSHA); err != nil {
			t.Fatal(err)
		}
		root := m.engine().Host().File(w.Sigstore.TrustedRoot)
		_, err := v.on(m).Verify(ctx, repoOf(w, "filer")+":dev", publishtest.IdentityRegexp, publishtest.Issuer, root, 1, "text", false)
		return err
	}),
	"store-attestations": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, v callVariant, digests string) error {
		publisher, _ := publishModule(t, w, true)
		if _, err := withSigstore(publisher, w, nil).PublishDev(ctx, devSHA); err != nil {
			t.Fatal(err)
		}
		root := m.engine().Host().File(w.Sigstore.TrustedRoot)
		_, err := v.on(m).StoreAttestations(ctx, digests, publishtest.IdentityRegexp, publishtest.Issuer, root, 1)
		return err
	}),
	"scan-published": publishCall(func(ctx context.Context, t *testing.T, w *publishtest.World, m *Shipyard, v callVariant, digests string) error {
		tagger, _ := publishModule(t, w, true)
		if _, err := tagger.TagImages(ctx, digests, []string{"sha-" + devSHA}); err != nil {
			t.Fatal(err)
		}
		_, err := v.on(m).ScanPublished(ctx, []string{repoOf(w, "filer") + ":sha-" + devSHA}, false)
		return err
	}),

	"release":                 {run: releaseRun(false)},
	"release-push":            chained("release jobs", releaseJobs),
	"release-push-platform":   chained("release split jobs", releaseSplitJobs),
	"release-assemble":        chained("release split jobs", releaseSplitJobs),
	"release-scan":            chained("release jobs", releaseJobs),
	"release-publish":         chained("release jobs", releaseJobs),
	"release-publish-release": chained("release jobs", releaseJobs),
}

// rehearsals are the calls that write nothing, made by the project's credentialed job: a
// dry run holds the credentials and still runs at the pull-request level.
var rehearsals = map[string]func(t *testing.T, v callVariant) []string{
	"release --dry-run":       releaseRun(true),
	"model-release --dry-run": modelRelease(true).run,
	"update-repos --dry-run":  updateRepos(true).run,
	"model-versions --check":  modelVersions(true),
}

// volumeSet records the cache volumes of calls, from concurrent subtests.
type volumeSet struct {
	mu  sync.Mutex
	got map[string]map[string][]string // call → variant → volumes
}

func (s *volumeSet) add(call, variant string, vols []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.got == nil {
		s.got = map[string]map[string][]string{}
	}
	if s.got[call] == nil {
		s.got[call] = map[string][]string{}
	}
	s.got[call][variant] = append(s.got[call][variant], vols...)
}

// trustVariants are the ways every function is called.
var trustVariants = map[string]callVariant{
	"default-pins":        {},
	"own-pins":            {pin: overridingPins},
	"without-credentials": {as: withoutCredentials},
	"own-servers":         {as: ownServers},
}

// runTrustCalls calls every function of trustRuns in every variant, and every rehearsal,
// each on its own engine doubles, concurrently; it returns when all did.
func runTrustCalls(t *testing.T) *volumeSet {
	got := &volumeSet{}
	t.Run("calls", func(t *testing.T) {
		done := map[string]bool{}
		for _, name := range slices.Sorted(maps.Keys(trustRuns)) {
			r := trustRuns[name]
			if (r.run == nil && r.chain == nil) || done[r.shared] {
				continue
			}
			if r.shared != "" {
				done[r.shared] = true
				name = r.shared
			}
			for label, v := range trustVariants {
				t.Run(name+"/"+label, func(t *testing.T) {
					t.Parallel()
					if r.chain == nil {
						got.add(name, label, r.run(t, v))
						return
					}
					for fn, vols := range r.chain(t, v) {
						got.add(fn, label, vols)
					}
				})
			}
		}
		for name, run := range rehearsals {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				got.add(name, "default-pins", run(t, callVariant{}))
			})
		}
	})
	return got
}

// levelOf is the class of the level a volume is named for (untrusted, release or tree).
func levelOf(volume string) string {
	for _, l := range []string{"untrusted", "release", "tree"} {
		if strings.Contains(volume, "-"+l+"-") {
			return l
		}
	}
	return ""
}

// TestTrustLevelsKeepCachesApart is the trust rule for every function of the module, on
// the recorded graphs of real calls:
//   - every function is declared (internal/functions) and has a row here;
//   - the project's credentialed call of a function that writes with credentials mounts
//     release volumes, any other function's call none;
//   - called by a pull request's job (without credentials, or with servers of its own)
//     and as a dry run, no function mounts a volume that any credentialed release call
//     mounts, and without credentials or as a dry run no release volume at all; a call
//     with servers of its own shares only the build-only volumes of the same Go image;
//   - a call with overriding --pin images mounts no volume that any default-pin release
//     call mounts, and no volume of the default pins.
func TestTrustLevelsKeepCachesApart(t *testing.T) {
	t.Parallel()
	s, err := modsurface.FromSource(".", "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range s.Names() {
		if !slices.Contains(functions.Names(), name) {
			t.Errorf("%s: not declared in internal/functions", name)
		}
		if _, ok := trustRuns[name]; !ok {
			t.Errorf("%s: no row in trustRuns; add a call that shows its cache volumes", name)
		}
	}
	for _, name := range functions.Names() {
		if _, ok := s.Functions[name]; !ok {
			t.Errorf("internal/functions declares %s, which the module does not register", name)
		}
	}
	got := runTrustCalls(t).got
	checkMountsSomething(t, got)

	released := map[string][]string{} // volume → credentialed calls mounting it with the default pins
	for name, mt := range got {
		if _, rehearsal := rehearsals[name]; rehearsal {
			continue
		}
		for _, v := range mt["default-pins"] {
			if levelOf(v) == "release" {
				released[v] = append(released[v], name)
			}
		}
	}
	if len(released) == 0 {
		t.Fatal("no credentialed call mounted a release volume: the test compares nothing")
	}
	for _, name := range slices.Sorted(maps.Keys(got)) {
		mt := got[name]
		_, rehearsal := rehearsals[name]
		for _, v := range mt["default-pins"] {
			want := wantLevel(name)
			if rehearsal {
				want = "untrusted"
			}
			if levelOf(v) != want {
				t.Errorf("%s mounts %q, a volume of no %s call", name, v, want)
			}
		}
		for _, variant := range []string{"own-pins", "without-credentials", "own-servers"} {
			for _, v := range mt[variant] {
				if variant == "own-servers" && isBuildOnly(v) {
					continue // the build of the module's own source in the same Go image
				}
				if len(released[v]) > 0 {
					t.Errorf("%s (%s) mounts %q, which credentialed %v mount", name, variant, v, released[v])
				}
				if variant == "without-credentials" && levelOf(v) == "release" {
					t.Errorf("%s without credentials mounts a release volume, %q", name, v)
				}
			}
		}
		for _, v := range mt["own-pins"] {
			if slices.Contains(mt["default-pins"], v) {
				t.Errorf("%s mounts %q both with the default pins and with overriding ones", name, v)
			}
		}
	}
	t.Log(fmt.Sprint(got))
}

// wantLevel is the level of the project's credentialed call of fn, as its trust rule says.
func wantLevel(fn string) string {
	d, err := functions.Of(fn)
	switch {
	case err != nil:
		return "undeclared"
	case d.Trust.Tree:
		return "tree"
	case len(d.Trust.Needs) > 0:
		return "release"
	}
	return "untrusted"
}

// checkMountsSomething fails for a row that mounts what it says it does not, or nothing
// without saying why; and for the hostile calls the issue names, which must run far
// enough to mount the volume they would have shared.
func checkMountsSomething(t *testing.T, got map[string]map[string][]string) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(trustRuns)) {
		r := trustRuns[name]
		if r.run == nil && r.chain == nil {
			if r.none == "" {
				t.Errorf("%s: neither a call nor a reason it mounts nothing", name)
			}
			continue
		}
		var all []string
		for _, vols := range got[name] {
			all = append(all, vols...)
		}
		switch {
		case r.chain != nil:
			// A job of a chain mounts what an earlier job's cached build did not already:
			// the chain as a whole mounts something.
			if !slices.ContainsFunc(slices.Collect(maps.Keys(trustRuns)), func(fn string) bool {
				return trustRuns[fn].shared == r.shared && len(got[fn]["default-pins"]) > 0
			}) {
				t.Errorf("the %s mounted no cache volume", r.shared)
			}
		case r.none == "" && len(got[name]["default-pins"]) == 0:
			t.Errorf("%s mounted no cache volume: say why in trustRuns (mountsNone)", name)
		case r.none != "" && len(all) > 0:
			t.Errorf("%s mounts %v, though it %s", name, all, r.none)
		}
	}
	for _, c := range []struct{ call, variant string }{
		{"update-repos --dry-run", "default-pins"}, {"publish-check", "without-credentials"},
		{"model-release --dry-run", "default-pins"}, {"model-release", "own-servers"},
		{"update-repos", "own-servers"}, {"gen-repo", "without-credentials"},
	} {
		if !slices.ContainsFunc(got[c.call][c.variant], func(v string) bool { return strings.HasPrefix(v, trust.UVCacheVolume) }) {
			t.Errorf("%s (%s) mounted no uv cache: the call stopped before what the check is about", c.call, c.variant)
		}
	}
}
