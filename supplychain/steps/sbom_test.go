package steps_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sgbundle "github.com/sigstore/sigstore-go/pkg/bundle"

	"dagger/shipyard/supplychain/referrers"
	"dagger/shipyard/supplychain/sbom"
	"dagger/shipyard/supplychain/steps"
	"dagger/shipyard/supplychain/verify"
)

// bomOf is a CycloneDX SBOM as Trivy writes it; serial differs between runs of Trivy.
func bomOf(serial string) []byte {
	return []byte(`{"bomFormat":"CycloneDX","specVersion":"1.6","serialNumber":"urn:uuid:` + serial +
		`","version":1,"components":[{"type":"library","name":"pip","version":"24.0"}]}`)
}

// The SBOM is attested as cosign's CycloneDX attestation (predicate type, the BOM as the
// predicate), verify can require it, and a re-run whose Trivy wrote another serial number
// keeps the first SBOM bundle: nothing is signed or written again.
func TestAttestSBOM(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			e := newEnv(t, m.referrersAPI)
			d, _ := e.reg.PushRandom(t, "org/filer")
			c := e.cfg
			c.Image = d.String()
			e.publish(t, d)

			policy := verify.Policy{IdentityRegexp: identityRE, Issuer: issuer, MinSCTs: 1,
				RequiredPredicateTypes: []string{verify.CosignSignPredicateType, verify.SLSAPredicateType, sbom.CycloneDXPredicateType}}
			if _, err := e.verify(t, d.String(), policy); err == nil {
				t.Fatal("an image without an SBOM passed a policy that requires one")
			}

			first, err := steps.AttestSBOM(context.Background(), c, bomOf("1"))
			if err != nil {
				t.Fatal(err)
			}
			if !first.Created || first.PredicateType != "https://cyclonedx.org/bom" || first.Digest != d.DigestStr() || first.Referrer == "" {
				t.Fatalf("outcome %+v", first)
			}
			res, err := e.verify(t, d.String(), policy)
			if err != nil {
				t.Fatalf("verify requiring the SBOM: %v", err)
			}
			if len(res.Verified) != 3 {
				t.Errorf("verified %+v, want signature, provenance and SBOM", res.Verified)
			}

			// What cosign reads: the statement in the bundle's DSSE envelope.
			refs, err := referrers.List(context.Background(), d)
			if err != nil {
				t.Fatal(err)
			}
			var st struct {
				Type          string         `json:"_type"`
				PredicateType string         `json:"predicateType"`
				Predicate     map[string]any `json:"predicate"`
			}
			for _, r := range refs {
				if r.PredicateType != sbom.CycloneDXPredicateType {
					continue
				}
				var b sgbundle.Bundle
				if err := b.UnmarshalJSON(r.Bundle); err != nil {
					t.Fatal(err)
				}
				env, err := b.Envelope()
				if err != nil {
					t.Fatal(err)
				}
				if env.RawEnvelope().PayloadType != "application/vnd.in-toto+json" {
					t.Errorf("payload type %q", env.RawEnvelope().PayloadType)
				}
				raw, err := env.DecodeB64Payload()
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(raw, &st); err != nil {
					t.Fatal(err)
				}
			}
			if st.Type != "https://in-toto.io/Statement/v1" || st.PredicateType != "https://cyclonedx.org/bom" || st.Predicate["bomFormat"] != "CycloneDX" || st.Predicate["serialNumber"] != "urn:uuid:1" {
				t.Errorf("statement %+v", st)
			}

			certs, entries := e.ss.Counts()
			writes := e.reg.Writes()
			again, err := steps.AttestSBOM(context.Background(), c, bomOf("2"))
			if err != nil {
				t.Fatal(err)
			}
			if again.Created || again.Referrer != first.Referrer {
				t.Errorf("re-run attested again: %+v", again)
			}
			if c2, e2 := e.ss.Counts(); c2 != certs || e2 != entries || e.reg.Writes() != writes {
				t.Errorf("re-run signed or wrote: certificates %d→%d, entries %d→%d, writes %d→%d", certs, c2, entries, e2, writes, e.reg.Writes())
			}
		})
	}
}

// A document that is not a CycloneDX BOM is refused before anything is signed or written.
func TestAttestSBOMRefusesOtherDocuments(t *testing.T) {
	e := newEnv(t, true)
	d, _ := e.reg.PushRandom(t, "org/filer")
	c := e.cfg
	c.Image = d.String()
	writes := e.reg.Writes()
	for _, doc := range []string{`{"SchemaVersion":2,"Results":[]}`, `{"spdxVersion":"SPDX-2.3"}`, ""} {
		if _, err := steps.AttestSBOM(context.Background(), c, []byte(doc)); err == nil || !strings.Contains(err.Error(), "CycloneDX") {
			t.Errorf("AttestSBOM(%q) = %v, want a refusal naming CycloneDX", doc, err)
		}
	}
	if certs, entries := e.ss.Counts(); certs != 0 || entries != 0 || e.reg.Writes() != writes {
		t.Errorf("a refused document signed or wrote: %d certificates, %d entries", certs, entries)
	}
}
