package steps_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	sgbundle "github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"

	"dagger/shipyard/supplychain/internal/testsigstore"
	"dagger/shipyard/supplychain/referrers"
	"dagger/shipyard/supplychain/signing"
	"dagger/shipyard/supplychain/steps"
)

// tesk-core's release run, in which the GitHub tests sign.
const (
	teskRepository  = "elixir-cloud-aai/tesk-core"
	releaseWorkflow = ".github/workflows/release.yml"
	releaseRef      = "refs/tags/v0.11.0"
)

// releaseEvidence is what Shipyard's steps leave for an image signed in tesk-core's release
// run, in the files gh reads.
type releaseEvidence struct {
	env      *env
	image    name.Digest
	img      v1.Image
	manifest []byte // the image's manifest: a file whose digest is the image's
	// bundles are the provenance and SBOM bundles as the registry holds them, as JSON lines
	// (what the publish step uploads to GitHub's attestation store, and what `gh
	// attestation download` writes).
	bundles []byte
	// trustedRoot is the test Sigstore's trusted root as gh reads a custom one: JSON lines.
	trustedRoot []byte
}

// signInReleaseRun pushes an image and attests its provenance and SBOM with the steps, as
// a release run of tesk-core's workflow does, with every claim GitHub's token has.
func signInReleaseRun(t *testing.T) *releaseEvidence {
	t.Helper()
	ctx := context.Background()
	e := newEnv(t, true)
	claims := testsigstore.GitHubActionsClaims(teskRepository, releaseWorkflow, releaseRef, strings.Repeat("c", 40))
	claims["iss"], claims["aud"], claims["exp"] = issuer, signing.SigstoreAudience, time.Now().Add(10*time.Minute).Unix()
	tok, err := signing.ParseToken([]byte(testsigstore.Token(claims)), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	e.cfg.Token = tok
	e.cfg.Signer = &signing.Signer{CertificateProvider: e.ss, TransparencyLogs: []sign.Transparency{e.ss}}
	d, img := e.reg.PushRandom(t, "elixir-cloud-aai/tesk-core-filer")
	c := e.cfg
	c.Image = d.String()
	if _, err := steps.Attest(ctx, c, input()); err != nil {
		t.Fatalf("attest: %v", err)
	}
	if _, err := steps.AttestSBOM(ctx, c, bomOf("1")); err != nil {
		t.Fatalf("attest-sbom: %v", err)
	}
	refs, err := referrers.List(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	var lines bytes.Buffer
	for _, r := range refs {
		if err := json.Compact(&lines, r.Bundle); err != nil {
			t.Fatal(err)
		}
		lines.WriteByte('\n')
	}
	trJSON, err := e.ss.TrustedRootJSON()
	if err != nil {
		t.Fatal(err)
	}
	var tr bytes.Buffer
	if err := json.Compact(&tr, trJSON); err != nil {
		t.Fatal(err)
	}
	tr.WriteByte('\n')
	manifest, err := img.RawManifest()
	if err != nil {
		t.Fatal(err)
	}
	return &releaseEvidence{env: e, image: d, img: img, manifest: manifest, bundles: lines.Bytes(), trustedRoot: tr.Bytes()}
}

func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

var updateAttestationFixture = flag.Bool("update-attestation-fixture", false,
	"sign the attestation fixture the root module's gh test uploads to the GitHub simulator")

// attestationFixture holds evidence signInReleaseRun made, for the root module's test of
// gh attestation verify against the GitHub simulator, which cannot import this module.
const attestationFixture = "../../internal/githubclient/testdata/tesk-core-attestation"

// The attestation fixture is Shipyard's own: made by signInReleaseRun (go test ./steps
// -run TestAttestationFixture -update-attestation-fixture), and it still verifies, as gh
// verifies it, for tesk-core's release workflow: every bundle attests the manifest's
// digest, with the owner and repository in the certificate.
func TestAttestationFixture(t *testing.T) {
	if *updateAttestationFixture {
		ev := signInReleaseRun(t)
		if err := os.MkdirAll(attestationFixture, 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, attestationFixture, "manifest.json", ev.manifest)
		write(t, attestationFixture, "bundles.jsonl", ev.bundles)
		write(t, attestationFixture, "trusted_root.jsonl", ev.trustedRoot)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(attestationFixture, name))
		if err != nil {
			t.Fatalf("%v (make it with -update-attestation-fixture)", err)
		}
		return b
	}
	manifest := read("manifest.json")
	tr, err := root.NewTrustedRootFromJSON(bytes.TrimSpace(read("trusted_root.jsonl")))
	if err != nil {
		t.Fatal(err)
	}
	// As gh verifies a bundle of a Sigstore whose intermediate is sigstore.dev's.
	v, err := sgverify.NewVerifier(tr, sgverify.WithSignedCertificateTimestamps(1), sgverify.WithTransparencyLog(1), sgverify.WithObserverTimestamps(1))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(manifest)
	san := "https://github.com/" + teskRepository + "/" + releaseWorkflow + "@" + releaseRef
	id, err := sgverify.NewShortCertificateIdentity(issuer, "", san, "")
	if err != nil {
		t.Fatal(err)
	}
	var predicates []string
	for line := range bytes.Lines(read("bundles.jsonl")) {
		var b sgbundle.Bundle
		if err := b.UnmarshalJSON(line); err != nil {
			t.Fatal(err)
		}
		res, err := v.Verify(&b, sgverify.NewPolicy(sgverify.WithArtifactDigest("sha256", sum[:]), sgverify.WithCertificateIdentity(id)))
		if err != nil {
			t.Fatalf("a fixture bundle does not verify for the manifest %s: %v", hex.EncodeToString(sum[:]), err)
		}
		if got := res.Signature.Certificate.SourceRepositoryOwnerURI; got != "https://github.com/elixir-cloud-aai" {
			t.Errorf("owner in the certificate %q", got)
		}
		predicates = append(predicates, res.Statement.PredicateType)
	}
	if strings.Join(predicates, " ") != "https://slsa.dev/provenance/v1 https://cyclonedx.org/bom" {
		t.Errorf("the fixture attests %q, want the provenance and the SBOM", predicates)
	}
}
