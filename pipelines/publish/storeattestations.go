package publish

import (
	"context"
	"errors"
	"fmt"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/functions"
)

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
	// One verification a digest: the flows verify the index and each platform image
	// (Subjects) by their own digests.
	for _, v := range s.Verified {
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
