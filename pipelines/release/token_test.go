package release

import (
	"dagger/shipyard/internal/flow"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/teskrepo"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// TestSigningOutlastsSlowBuilds: GitHub's identity tokens expire about five minutes after
// they are issued, and the builds before signing can take as long. Scaled down: tokens live
// 2s, and every exec and build of the engine double takes 3s. A token fetched once before
// the run (as release.yml did) has expired when attest runs, and nothing is tagged; with
// the token endpoint handed to the signing tool, each attest and sign requests its own
// token right before it signs, and the release signs, verifies and tags.
func TestSigningOutlastsSlowBuilds(t *testing.T) {
	// Both halves mostly wait for the double's latency: they run beside each other and
	// beside the package's other parallel tests.
	t.Parallel()
	const lifetime, latency = 2 * time.Second, 3 * time.Second
	slowWorld := func(t *testing.T) (*world, *publishtest.TokenEndpoint) {
		w := newWorld(t, teskrepo.Options{})
		w.repo.Release("v0.11.0")
		w.engineOpts = []engine.Option{engine.WithExecLatency(latency)}
		te := w.pub.TokenEndpoint(t, lifetime)
		w.freshEngine()
		w.serve("v0.11.0")
		return w, te
	}

	t.Run("a token fetched before the builds has expired at attest", func(t *testing.T) {
		t.Parallel()
		w, te := slowWorld(t)
		cfg := w.config()
		early := te.Fetch(t)
		w.pub.SetSecret("oidc-token-fetched-early", early)
		cfg.Images.Sign.OIDCToken = w.c.SetSecret("oidc-token-fetched-early", early)
		_, stale := Run(t.Context(), cfg, "v0.11.0", Options{})
		if flow.FailedStep(stale) != StepAttest || !strings.Contains(stale.Error(), "expired") {
			t.Fatalf("with a token fetched before the builds: %v, want attest to find it expired", stale)
		}
		for _, n := range teskImages {
			if tags := w.tags(n); len(tags) != 0 {
				t.Fatalf("%s tagged %v", n, tags)
			}
		}
		w.assertNoSecrets(stale.Error())
	})

	t.Run("a token requested before each use signs", func(t *testing.T) {
		t.Parallel()
		w, te := slowWorld(t)
		cfg := w.config()
		cfg.Images.Sign.OIDCToken = nil
		cfg.Images.Sign.TokenRequest = &publish.TokenRequest{
			URL:   w.c.SetSecret(publishtest.TokenRequestURLSecret, te.URL),
			Token: w.c.SetSecret(publishtest.TokenRequestTokenSecret, te.Bearer),
		}
		before := te.Requests()
		started := time.Now()
		rep, err := Run(t.Context(), cfg, "v0.11.0", Options{})
		if err != nil {
			t.Fatalf("with tokens requested before each use: %v", err)
		}
		if took := time.Since(started); took < 3*lifetime {
			t.Errorf("the release took %s, not longer than a token lives: the test proves nothing", took)
		}
		// One token per attest, SBOM attest and sign exec, each requested by the tool itself.
		if n := te.Requests() - before; n != 3*len(teskImages) {
			t.Errorf("%d tokens requested, want one per attest, SBOM attest and sign of each image (%d)", n, 3*len(teskImages))
		}
		for _, img := range rep.Images {
			if img.Signature == "" || img.Attestation == "" || !strings.Contains(strings.Join(img.Tags, ","), "0.11.0") {
				t.Errorf("image %+v", img)
			}
		}
		for _, x := range w.e.Graph().ExecsWith("supplychain") {
			if strings.Contains(strings.Join(x.Args, " "), "--oidc-token-file") {
				t.Errorf("exec %v reads a token file, want the token request", x.Args)
			}
		}
		w.assertNoSecrets(rep.Text())
	})
}
