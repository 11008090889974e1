package publish_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// The SBOM step: Trivy writes each digest's CycloneDX SBOM from the digest itself, with no
// credential; the tool attests it with the provenance's signer; verify can then require
// it, and an image attested and signed without it fails that requirement.
func TestAttestSBOMs(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	pushed := v.pushed(t)

	ev, err := publish.AttestSBOMs(ctx, "attest", v.sign, v.scanner, v.target, pushed)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != len(pushed) {
		t.Fatalf("evidence %+v", ev)
	}
	for i, e := range ev {
		if e.Kind != publish.KindSBOM || !e.Created || e.Digest != pushed[i].Digest || e.Identity != publishtest.Identity || e.Referrer == "" {
			t.Errorf("evidence %+v", e)
		}
	}
	// Trivy read the pushed digest, and nothing secret reached it.
	sbomOf := map[string]bool{}
	for _, x := range v.e.Graph().Execs() {
		if len(x.Args) < 2 || x.Args[0] != "trivy" || !slices.Contains(x.Args, "cyclonedx") {
			continue
		}
		if len(x.Secrets) != 0 {
			t.Errorf("the SBOM exec %q received secrets %v", x.Args, x.Secrets)
		}
		sbomOf[x.Args[len(x.Args)-1]] = true
	}
	for _, p := range pushed {
		if !sbomOf[p.Ref()] {
			t.Errorf("no SBOM of %s; Trivy described %v", p.Ref(), sbomOf)
		}
	}
	var sbomRuns int
	for _, run := range w.Runs() {
		if slices.Contains(run, "--sbom") {
			sbomRuns++
		}
	}
	if sbomRuns != len(pushed) {
		t.Errorf("%d supplychain attest --sbom runs, want %d", sbomRuns, len(pushed))
	}

	root := v.c.Host().File(w.Sigstore.TrustedRoot)
	// Attested, not signed yet: requiring the SBOM is not enough, the signature and the
	// provenance are required too.
	if _, err := publish.Verify(ctx, "verify", v.sign.Tool, v.target.RegistryTool, pushed[0].Ref(), publishtest.IdentityRegexp, publishtest.Issuer, root,
		publish.WithRegistryLogin(v.target), publish.WithRequiredSBOM()); err == nil {
		t.Error("an image with only an SBOM verified")
	}
	if _, err := publish.Attest(ctx, "attest", v.sign, v.target, pushed, v.images); err != nil {
		t.Fatal(err)
	}
	if _, err := publish.Sign(ctx, "sign", v.sign, v.target, pushed); err != nil {
		t.Fatal(err)
	}
	got, err := publish.Verify(ctx, "verify", v.sign.Tool, v.target.RegistryTool, pushed[0].Ref(), publishtest.IdentityRegexp, publishtest.Issuer, root,
		publish.WithRegistryLogin(v.target), publish.WithRequiredSBOM())
	if err != nil {
		t.Fatalf("verify requiring the SBOM: %v", err)
	}
	if !strings.Contains(got.Text(), "CycloneDX SBOM by "+publishtest.Identity) {
		t.Errorf("verification:\n%s", got.Text())
	}

	// Re-run on a fresh engine, where Trivy writes another serial number: nothing is signed
	// or written again.
	writes := len(w.Registry.Writes())
	again := newEnv(t, w)
	for _, n := range imageNames {
		w.ServeSBOM(again.e, n, strings.Replace(publishtest.SBOM(n), "3e671687", "00000000", 1))
	}
	ev2, err := publish.AttestSBOMs(ctx, "attest", again.sign, again.scanner, again.target, pushed)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range ev2 {
		if e.Created || e.Referrer != ev[i].Referrer {
			t.Errorf("re-run attested again: %+v, first %+v", e, ev[i])
		}
	}
	if n := len(w.Registry.Writes()); n != writes {
		t.Errorf("re-run wrote %d time(s) to the registry", n-writes)
	}
	v.noSecrets(t, jsonOf(t, ev))
}

// An image attested and signed without an SBOM verifies as before, and fails --require-sbom.
func TestVerifyRequiredSBOM(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	pushed := v.pushed(t)
	if _, err := publish.Attest(ctx, "attest", v.sign, v.target, pushed, v.images); err != nil {
		t.Fatal(err)
	}
	if _, err := publish.Sign(ctx, "sign", v.sign, v.target, pushed); err != nil {
		t.Fatal(err)
	}
	root := v.c.Host().File(w.Sigstore.TrustedRoot)
	if _, err := publish.Verify(ctx, "verify", v.sign.Tool, v.target.RegistryTool, pushed[0].Ref(), publishtest.IdentityRegexp, publishtest.Issuer, root, publish.WithRegistryLogin(v.target)); err != nil {
		t.Fatalf("verify without the SBOM requirement: %v", err)
	}
	_, err := publish.Verify(ctx, "verify", v.sign.Tool, v.target.RegistryTool, pushed[0].Ref(), publishtest.IdentityRegexp, publishtest.Issuer, root,
		publish.WithRegistryLogin(v.target), publish.WithRequiredSBOM())
	if err == nil || !strings.Contains(err.Error(), "cyclonedx") {
		t.Fatalf("err = %v, want a missing CycloneDX attestation", err)
	}
}

// Trivy failing to write the SBOM stops the step before anything is signed.
func TestAttestSBOMsTrivyFails(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	pushed := v.pushed(t)
	v.e.OnExec(engine.ExecRule{ArgsContain: publishtest.SBOMExec, ExitCode: 1, Stderr: "FATAL unable to find the image"})
	certs, entries := w.Sigstore.Counts(t)
	_, err := publish.AttestSBOMs(ctx, "attest", v.sign, v.scanner, v.target, pushed)
	if err == nil || !strings.Contains(err.Error(), "unable to find the image") {
		t.Fatalf("err = %v, want Trivy's failure", err)
	}
	if c, e := w.Sigstore.Counts(t); c != certs || e != entries {
		t.Errorf("signed after Trivy failed: certificates %d→%d, entries %d→%d", certs, c, entries, e)
	}
}
