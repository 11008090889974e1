package publish

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/flow"
)

// Signer is the identity and OIDC issuer that signed the evidence of a publish.
type Signer struct {
	Identity string `json:"identity"`
	Issuer   string `json:"issuer"`
}

// ExpectedSigner returns the one signer of the evidence: the identity and issuer of the
// token the attest and sign steps ran with (supplychain reports them, and keeps an earlier
// bundle only if it verifies for them). Every pushed digest must have both an attestation
// and a signature, all from that signer; anything else is refused.
func ExpectedSigner(pushed []Pushed, evidence []Evidence) (Signer, error) {
	var s Signer
	var errs []error
	for _, p := range pushed {
		has := map[string]bool{}
		for _, e := range evidence {
			if e.Name != p.Name || e.Digest != p.Digest {
				continue
			}
			has[e.Kind] = true
			switch {
			case e.Identity == "" || e.Issuer == "":
				errs = append(errs, fmt.Errorf("%s %s of %s names no signer", e.Kind, e.Referrer, p.Ref()))
			case s.Identity == "":
				s = Signer{Identity: e.Identity, Issuer: e.Issuer}
			case e.Identity != s.Identity || e.Issuer != s.Issuer:
				errs = append(errs, fmt.Errorf("%s of %s is by %s (%s), other evidence by %s (%s)", e.Kind, p.Ref(), e.Identity, e.Issuer, s.Identity, s.Issuer))
			}
		}
		for _, kind := range []string{KindAttestation, KindSignature} {
			if !has[kind] {
				errs = append(errs, fmt.Errorf("%s has no %s", p.Ref(), kind))
			}
		}
	}
	if len(pushed) == 0 {
		errs = append(errs, errors.New("no pushed image"))
	}
	if err := errors.Join(errs...); err != nil {
		return Signer{}, err
	}
	return s, nil
}

// IdentityPattern is the anchored regexp that matches exactly identity.
func IdentityPattern(identity string) string {
	return "^" + regexp.QuoteMeta(identity) + "$"
}

// verifySigned verifies, the way a user will, that each pushed digest carries a signature
// and SLSA provenance from the expected signer that verify against the trusted root, and
// its SBOM attestation too when the evidence holds one (the attest-sbom step ran). It
// runs after attest and sign and before any tag moves: whatever the steps reported, a tag
// never names a digest that does not verify. Of a multi-platform image, the index and each
// platform image are verified (Subjects). With keepBundles, the attestation bundles that
// verified are kept for the attestation store.
func verifySigned(ctx context.Context, in SignInputs, t Target, pushed []Pushed, evidence []Evidence, keepBundles bool) ([]Verification, error) {
	pushed = Subjects(pushed)
	signer, err := ExpectedSigner(pushed, evidence)
	if err != nil {
		return nil, err
	}
	out := make([]Verification, len(pushed))
	err = fanout.Each(ctx, 0, len(pushed), func(ctx context.Context, i int) error {
		opts := []VerifyOption{WithRegistryLogin(t)}
		if hasEvidence(evidence, pushed[i], KindSBOM) {
			opts = append(opts, WithRequiredSBOM())
		}
		if keepBundles {
			opts = append(opts, withBundles())
		}
		v, err := VerifyRequest{Tool: in.Tool, RegistryTool: t.RegistryTool, Image: pushed[i].Ref(), Identity: IdentityPattern(signer.Identity),
			Issuer: signer.Issuer, TrustedRoot: in.TrustedRoot, Options: opts}.verify(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", pushed[i].Name, err)
		}
		out[i] = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// hasEvidence is whether evidence holds a bundle of kind for p's digest.
func hasEvidence(evidence []Evidence, p Pushed, kind string) bool {
	for _, e := range evidence {
		if e.Name == p.Name && e.Digest == p.Digest && e.Kind == kind {
			return true
		}
	}
	return false
}

// StepVerifySigned verifies the signature and provenance with the signer's identity
// before any tag moves.
const StepVerifySigned = "verify-signed"

var verifySignedStep = imageStep{name: StepVerifySigned, writes: false, next: adviceUntagged, run: (*ImageState).verifySigned}

func (s *ImageState) verifySigned(ctx context.Context) error {
	var err error
	if s.Verified, err = verifySigned(ctx, s.Signing, s.Target, s.Pushed, s.Evidence, s.Store != nil); err != nil {
		return err
	}
	for _, v := range s.Verified {
		flow.Logf(ctx, "%s: %d bundle(s) verified", v.Ref, len(v.Verified))
	}
	return nil
}
