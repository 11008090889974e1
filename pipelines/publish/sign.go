package publish

import (
	"context"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/functions"
)

// signAll is the signing of pushed, as Sign describes.
func signAll(ctx context.Context, in SignInputs, t Target, pushed []Pushed) ([]Evidence, error) {
	if err := checkPublished(ctx, t, pushed); err != nil {
		return nil, err
	}
	return runPerImage(ctx, Subjects(pushed), func(_ int, p Pushed) (Evidence, error) {
		return in.publishStep(ctx, "sign", KindSignature, cosignPredicateType, t, p, nil)
	})
}

// StepSign is the name of the sign step.
const StepSign = functions.Sign

var signStep = imageStep{name: StepSign, writes: true, next: adviceUntagged, run: (*ImageState).sign}

func (s *ImageState) sign(ctx context.Context) error {
	ev, err := signAll(ctx, s.Signing, s.Target, s.Pushed)
	if err != nil {
		return err
	}
	s.Evidence = append(s.Evidence, ev...)
	flow.Logf(ctx, "%d signature(s)", len(ev))
	return nil
}
