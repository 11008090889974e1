package publish

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/functions"
)

// AttestationStore is a forge's store of attestations beside the registry's referrers,
// where its users look for them: GitHub's, which `gh attestation verify --owner …` and a
// repository's Attestations page read. Store puts one bundle there for the image digest
// it attests, unless the store lists that bundle for the digest already, and says whether
// it uploaded: a re-run stores nothing twice.
type AttestationStore interface {
	Store(ctx context.Context, image, digest string, bundle []byte) (uploaded bool, err error)
}

// StoreReport counts what the store-attestations step did.
type StoreReport struct {
	Uploaded int `json:"uploaded"`
	Present  int `json:"present"`
}

// StepStoreAttestations puts the attestation bundles that verified (provenance and SBOM,
// of the index and of each platform image) into the forge's attestation store, after
// verify-signed and before any tag.
const StepStoreAttestations = functions.StoreAttestations

var storeAttestationsStep = imageStep{name: StepStoreAttestations, writes: true, next: adviceUntagged, run: (*ImageState).storeAttestations}

// storeAttestations stores each verified bundle of each verified digest. Without a store
// it says so and does nothing: the registry's referrers hold the same bundles.
func (s *ImageState) storeAttestations(ctx context.Context) error {
	if s.Store == nil {
		flow.Logf(ctx, "no attestation store given: the bundles are in the registry only")
		return nil
	}
	var bundles int
	for _, v := range verifiedDigests(s.Verified) {
		if len(v.bundles) == 0 {
			return fmt.Errorf("%s: no verified attestation bundle to store", v.Ref)
		}
		for _, b := range v.bundles {
			uploaded, err := s.Store.Store(ctx, v.Ref, v.Digest, b)
			if err != nil {
				return err
			}
			bundles++
			if uploaded {
				s.Stored.Uploaded++
			} else {
				s.Stored.Present++
			}
		}
	}
	if bundles == 0 {
		return errors.New("no verified digest to store attestations of: verify-signed runs first")
	}
	flow.Logf(ctx, "%d bundle(s) stored, %d already there", s.Stored.Uploaded, s.Stored.Present)
	return nil
}

// verifiedDigests are the verifications of every digest: each image, and of an index each
// platform image, as verify-signed verified them.
func verifiedDigests(vs []Verification) []Verification {
	var out []Verification
	for _, v := range vs {
		out = append(out, v)
		out = append(out, verifiedDigests(v.Platforms)...)
	}
	return out
}

// StoreAttestations is store-attestations run alone (its function, fn): each pushed digest,
// and of an index each platform image (Subjects), is verified against req's signer, keeping
// the provenance and SBOM bundles that verified, and those bundles go to store. A job that
// attests and signs in calls of their own runs it after them and before tagging; nothing is
// stored unless every digest verifies. req names the signer and the trusted root; its Image
// is ignored.
func StoreAttestations(ctx context.Context, fn string, req VerifyRequest, pushed []Pushed, store AttestationStore) (StoreReport, error) {
	s := &ImageState{VerifyRequest: req, Pushed: pushed, Store: store}
	steps := []flow.Step[ImageState]{
		{Name: StepInputs, Next: "nothing was written: give what the error names", Run: func(_ context.Context, s *ImageState) error { return s.checkStoreGiven() }},
		{Name: StepVerify, Next: "nothing was stored: publish the digests' evidence first (attest, attest-sbom, sign)", Run: func(ctx context.Context, s *ImageState) error { return s.verifyPushed(ctx) }},
	}
	steps = append(steps, Steps(aloneAdvice(nil), func(s *ImageState) *ImageState { return s }, StepStoreAttestations)...)
	_, err := flow.Run(ctx, flow.Runner{Flow: fn, Log: s.Log}, steps, s)
	return s.Stored, err
}

// checkStoreGiven checks what store-attestations alone is given: the digests, a signer to
// verify them against, and a store.
func (s *ImageState) checkStoreGiven() error {
	if err := checkPushed(s.Pushed); err != nil {
		return err
	}
	r := s.VerifyRequest
	r.Image = s.Pushed[0].Ref() // each digest's, in turn
	if err := r.check(); err != nil {
		return err
	}
	if s.Store == nil {
		return errors.New("no attestation store to write to")
	}
	return nil
}

// verifyPushed verifies each pushed digest against the request's signer, keeping the
// provenance and, where the digest has one, the SBOM bundle that verified.
func (s *ImageState) verifyPushed(ctx context.Context) error {
	for _, p := range Subjects(s.Pushed) {
		r := s.VerifyRequest
		r.Image = p.Ref()
		r.Options = append(slices.Clone(r.Options), withBundles())
		v, err := r.verify(ctx)
		if err != nil {
			return err
		}
		v.Image = p.Name
		s.Verified = append(s.Verified, v)
		flow.Logf(ctx, "%s: %d bundle(s) verified", v.Ref, len(v.Verified))
	}
	return nil
}
