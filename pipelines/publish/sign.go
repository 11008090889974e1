package publish

import (
	"context"
)

// Sign signs each pushed digest keylessly (a Fulcio certificate for the OIDC token's
// identity, a Rekor entry) with the statement cosign v2.6 signs with --new-bundle-format,
// and attaches the Sigstore bundle to the digest as an OCI referrer, where `cosign verify`
// finds it. A multi-platform image's index and each of its platform images are signed, as
// `cosign sign --recursive` does (see Subjects). A digest that already carries its
// signature keeps it: a re-run writes nothing.
// fn is the function it is a call of, which names its flow in logs and errors.
func Sign(ctx context.Context, fn string, in SignInputs, t Target, pushed []Pushed) ([]Evidence, error) {
	s := &ImageState{Sign: in, Target: t, Pushed: pushed}
	if err := Alone(ctx, fn, s, StepSign); err != nil {
		return nil, err
	}
	return s.Evidence, nil
}

// sign is the signing of pushed, as Sign describes.
func sign(ctx context.Context, in SignInputs, t Target, pushed []Pushed) ([]Evidence, error) {
	if err := checkPublished(ctx, t, pushed); err != nil {
		return nil, err
	}
	return runPerImage(ctx, Subjects(pushed), func(_ int, p Pushed) (Evidence, error) {
		return in.publishStep(ctx, "sign", KindSignature, cosignPredicateType, t, p, nil)
	})
}
