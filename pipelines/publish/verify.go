package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/wire"
)

// verify is the verification of r's image, as Verify describes, of a checked request.
func (r VerifyRequest) verify(ctx context.Context) (Verification, error) {
	cfg := r.config()
	image := r.Image
	repo, _, err := splitRef(image)
	if err != nil {
		return Verification{}, err
	}
	reader := Target{RegistryTool: r.RegistryTool}
	if cfg.target != nil {
		reader = *cfg.target
	}
	resolved, err := reader.resolveRefs(ctx, []string{image}, cfg.platforms)
	if err != nil {
		return Verification{}, fmt.Errorf("%s: %w", image, err)
	}
	digest := resolved[0].Digest
	ref := repo + "@" + digest

	ctr := r.Tool.WithMountedFile(trustedRootPath, r.TrustedRoot)
	args := append([]string{"supplychain", "verify", "--image", ref,
		"--certificate-identity-regexp", r.Identity, "--certificate-oidc-issuer", r.Issuer,
		"--trusted-root", trustedRootPath, "--min-scts", strconv.Itoa(cfg.minSCTs)}, plainHTTPArgs(registryHostOf(ref))...)
	if cfg.bundles {
		args = append(args, "--with-bundles")
	}
	if cfg.requireSBOM {
		args = append(args, "--require", cosignPredicateType, "--require", slsaPredicateType, "--require", CycloneDXPredicateType)
	}
	if cfg.target != nil && cfg.target.Password != nil {
		ctr = ctr.WithMountedSecret(registryPassPath, cfg.target.Password)
		args = append(args, "--registry-username", cfg.target.Username, "--registry-password-file", registryPassPath)
	}
	stdout, err := runTool(ctx, ctr, args)
	if err != nil {
		return Verification{}, fmt.Errorf("%s (%s): %w", image, ref, err)
	}
	var got wire.VerifyResult
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		return Verification{}, fmt.Errorf("%s: reading supplychain verify's output: %w", image, err)
	}
	if got.Digest != digest || len(got.Verified) == 0 {
		return Verification{}, fmt.Errorf("%s: supplychain verified %q with %d bundles, want %s", image, got.Digest, len(got.Verified), digest)
	}
	v := Verification{Image: image, Ref: ref, Digest: digest, Verified: got.Verified}
	for i, b := range v.Verified {
		if b.Bundle != nil && (b.PredicateType == slsaPredicateType || b.PredicateType == CycloneDXPredicateType) {
			v.bundles = append(v.bundles, b.Bundle)
		}
		v.Verified[i].Bundle = nil // the result names what verified; the bundles are in the registry
	}
	if !cfg.platforms {
		return v, nil
	}
	one := r
	one.Options = append(slices.Clone(r.Options), func(c *verifyConfig) { c.platforms = false })
	for _, l := range resolved[0].Platforms {
		one.Image = repo + "@" + l.Digest
		pv, err := one.verify(ctx)
		if err != nil {
			return Verification{}, fmt.Errorf("%s, its %s image: %w", image, l.Platform, err)
		}
		pv.Platform = l.Platform
		v.Platforms = append(v.Platforms, pv)
	}
	return v, nil
}

// StepVerify verifies one image, by tag or digest, against a signer its caller names:
// the check before a deploy (verify). No publishing flow asks for it.
const StepVerify = functions.Verify

var verifyStep = imageStep{name: StepVerify, writes: false, next: noAdvice, run: (*ImageState).verify}

// verify verifies the one image of the request against the signer it names.
func (s *ImageState) verify(ctx context.Context) error {
	v, err := s.VerifyRequest.verify(ctx)
	if err != nil {
		return err
	}
	s.Verified = append(s.Verified, v)
	return nil
}
