// Package sbom turns a CycloneDX JSON SBOM of an image into the in-toto
// Statement v1 that attests it: predicate type https://cyclonedx.org/bom (the
// URI `cosign verify-attestation --type cyclonedx` looks for) and the SBOM
// itself, unchanged, as the predicate. The SBOM is checked first, so a report
// of another kind, or not JSON at all, is never signed.
package sbom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"dagger/shipyard/supplychain/provenance"
)

// CycloneDXPredicateType is the in-toto predicate type of a CycloneDX BOM.
const CycloneDXPredicateType = "https://cyclonedx.org/bom"

// ErrNotCycloneDX is wrapped when the document is not a CycloneDX JSON BOM.
var ErrNotCycloneDX = errors.New("not a CycloneDX JSON BOM")

// Check reads a CycloneDX JSON BOM: one JSON object whose bomFormat is
// "CycloneDX" and that names its specVersion. It returns the BOM compacted,
// the bytes the predicate holds.
func Check(doc []byte) (json.RawMessage, error) {
	var head struct {
		BOMFormat   *string `json:"bomFormat"`
		SpecVersion *string `json:"specVersion"`
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotCycloneDX, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one JSON value", ErrNotCycloneDX)
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("%w: not a JSON object", ErrNotCycloneDX)
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotCycloneDX, err)
	}
	switch {
	case head.BOMFormat == nil || *head.BOMFormat != "CycloneDX":
		return nil, fmt.Errorf(`%w: bomFormat is not "CycloneDX" (an SPDX document, or a Trivy JSON report?)`, ErrNotCycloneDX)
	case head.SpecVersion == nil || strings.TrimSpace(*head.SpecVersion) == "":
		return nil, fmt.Errorf("%w: no specVersion", ErrNotCycloneDX)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotCycloneDX, err)
	}
	return out.Bytes(), nil
}

// Statement is the in-toto Statement v1 attesting bom for the image
// imageName at digest (sha256:…).
func Statement(imageName, digest string, bom []byte) (provenance.Statement, error) {
	pred, err := Check(bom)
	if err != nil {
		return provenance.Statement{}, err
	}
	alg, hexDigest, ok := strings.Cut(digest, ":")
	if !ok || alg != "sha256" || hexDigest == "" {
		return provenance.Statement{}, fmt.Errorf("image digest %q is not sha256:…", digest)
	}
	return provenance.Statement{
		Type: provenance.StatementType,
		Subject: []provenance.ResourceDescriptor{{
			Name:   imageName,
			Digest: map[string]string{"sha256": hexDigest},
		}},
		PredicateType: CycloneDXPredicateType,
		Predicate:     pred,
	}, nil
}
