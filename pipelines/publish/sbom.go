package publish

import (
	"context"
	"fmt"

	"dagger/shipyard/internal/trust"
	"dagger/shipyard/pipelines/ci"
)

// CycloneDXPredicateType is the in-toto predicate type of the SBOM attestation: the URI
// `cosign verify-attestation --type cyclonedx` requires of the statement.
const CycloneDXPredicateType = "https://cyclonedx.org/bom"

// KindSBOM is the evidence kind of an attested SBOM.
const KindSBOM = "sbom"

// sbomPath is where the tool container finds the SBOM it attests.
const sbomPath = "/run/shipyard/sbom.cdx.json"

// AttestSBOMs writes the CycloneDX JSON SBOM of each pushed digest with the pinned Trivy
// (pulling the digest anonymously, as the scan does), then signs it as an in-toto statement
// of predicate type https://cyclonedx.org/bom and attaches the Sigstore bundle to the digest
// as an OCI referrer, like the provenance. A digest that already carries an SBOM bundle
// signed by the token's identity keeps it: a re-run writes nothing.
func AttestSBOMs(ctx context.Context, in SignInputs, p *ci.Pipeline, t Target, pushed []Pushed) ([]Evidence, error) {
	if err := in.check(StepSBOM); err != nil {
		return nil, err
	}
	if err := t.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", StepSBOM, err)
	}
	if err := checkPushed(pushed); err != nil {
		return nil, fmt.Errorf("%s: %w", StepSBOM, err)
	}
	if p == nil {
		return nil, fmt.Errorf("%s: no CI pipeline to take Trivy's pin from", StepSBOM)
	}
	if err := checkPublished(ctx, StepSBOM, t, pushed); err != nil {
		return nil, err
	}
	// What is published is described by the release level's Trivy cache, never one a pull
	// request's CI wrote.
	rel := p.AtTrust(trust.Release)
	return runPerImage(pushed, func(_ int, img Pushed) (Evidence, error) {
		bom := rel.SBOM(ci.ScanTarget{Name: img.Name, Ref: img.Ref()})
		with := in
		with.Tool = in.Tool.WithMountedFile(sbomPath, bom)
		return with.publishStep(ctx, "attest", KindSBOM, CycloneDXPredicateType, t, img, []string{"--sbom", sbomPath})
	})
}
