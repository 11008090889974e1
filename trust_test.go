package main

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/testkit/githubsim"
	"dagger/shipyard/internal/testkit/pypisim"
	"dagger/shipyard/models/modelrelease/modelreleasetest"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// TestNoCacheSharedBetweenRepositoryCodeAndPublishing runs every job that runs the
// repository's (or a pull request's) code and every job that publishes, each on its own
// engine double, and checks on the recorded graphs that no cache volume of the first kind
// is mounted by the second: code of a pull request must not be able to plant a download
// (a wheel, a hook, a Trivy database) that a publishing step then uses.
func TestNoCacheSharedBetweenRepositoryCodeAndPublishing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	caches := func(e *engine.Engine) []string { return e.Graph().CacheVolumes() }
	untrusted := map[string][]string{} // job → cache volumes
	publishing := map[string][]string{}

	// tesk-core CI: every job of a pull request.
	{
		m, e := newModule(t, nil)
		e.ExpectExecs(ciExecs...)
		cleanScans(e)
		if _, err := m.Ci(ctx, "fix: retry uploads", nil, nil, "all", "default"); err != nil {
			t.Fatalf("ci: %v", err)
		}
		untrusted["ci"] = caches(e)
	}
	// Cloudcoil: validate-models, gen-repo and check-artifacts run a pull request's code.
	{
		m, e := modelModule(t, cloudcoilRepo(t))
		modelreleasetest.RenderOneFolder(e)
		modelreleasetest.ServeDistributions(e, "", fixtures.BuildDistributions(t, fixtures.ModelRepoFiles(t, nil), nil))
		if _, err := m.ValidateModels(ctx, "", []string{"models/kyverno/cookiecutter.yaml"}, "", false); err != nil {
			t.Fatalf("validate-models: %v", err)
		}
		if _, err := m.GenRepo(ctx, "velero"); err != nil {
			t.Fatalf("gen-repo: %v", err)
		}
		untrusted["validate-models, gen-repo"] = caches(e)
	}
	{
		m, e := modelModule(t, fixtures.ModelRepo(t, nil))
		modelreleasetest.ServeDistributions(e, "", fixtures.BuildDistributions(t, fixtures.ModelRepoFiles(t, nil), nil))
		if _, err := m.CheckArtifacts(ctx); err != nil {
			t.Fatalf("check-artifacts: %v", err)
		}
		untrusted["check-artifacts"] = caches(e)
	}

	// tesk-core publishing: publish-dev chains push, scan-digests (the release's scan
	// step too), attest, sign and tag.
	{
		w := publishtest.NewWorld(t)
		m, e := publishModule(t, w, true)
		if _, err := withSigstore(m, w, nil).PublishDev(ctx, devSHA); err != nil {
			t.Fatalf("publish-dev: %v", err)
		}
		publishing["publish-dev"] = caches(e)
	}
	// Cloudcoil publishing: publish-check builds what goes to PyPI; model-release builds
	// and pushes the release branch.
	{
		files := fixtures.ModelRepoFiles(t, nil)
		m, e := modelModule(t, fixtures.ModelRepo(t, nil))
		modelreleasetest.ServeDistributions(e, "", fixtures.BuildDistributions(t, files, nil))
		if _, err := m.PublishCheck(ctx, "1.17.1.0"); err != nil {
			t.Fatalf("publish-check: %v", err)
		}
		publishing["publish-check"] = caches(e)
	}
	{
		sim := githubsim.New(t)
		sim.AddToken(modelToken, githubsim.Token{PushAccess: true})
		repo := sim.AddRepo("cloudcoil", "models-cert-manager")
		files := fixtures.ModelRepoFiles(t, nil)
		mainSHA := repo.CommitOnBranch("main", "Update generated models", files)
		pypi := pypisim.New(t)
		m, e := modelModule(t, fixtures.ModelRepo(t, nil))
		m.Repo, m.GithubAPI = "cloudcoil/models-cert-manager", sim.URL+"/"
		modelreleasetest.ServeDistributions(e, modelreleasetest.VersionChain("1.17.1.0"), fixtures.BuildDistributions(t, files, nil))
		if _, err := m.ModelRelease(ctx, "1.17.1", false, false, false, mainSHA, pypi.URL()); err != nil {
			t.Fatalf("model-release: %v", err)
		}
		publishing["model-release"] = caches(e)
	}

	for job, vols := range untrusted {
		if len(vols) == 0 {
			t.Errorf("%s mounted no cache volume: the test no longer sees its caches", job)
		}
	}
	for _, pub := range slices.Sorted(maps.Keys(publishing)) {
		if len(publishing[pub]) == 0 {
			t.Errorf("%s mounted no cache volume: the test no longer sees its caches", pub)
		}
		for _, job := range slices.Sorted(maps.Keys(untrusted)) {
			for _, v := range publishing[pub] {
				if slices.Contains(untrusted[job], v) {
					t.Errorf("cache volume %q is mounted by %s (repository code) and by %s (publishing)", v, job, pub)
				}
			}
		}
		for _, v := range publishing[pub] {
			if strings.HasSuffix(v, "-untrusted") {
				t.Errorf("%s mounts the untrusted volume %q", pub, v)
			}
		}
	}
	t.Logf("repository code: %v", untrusted)
	t.Logf("publishing: %v", publishing)
}
