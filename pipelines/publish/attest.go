package publish

import (
	"context"
	"fmt"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/functions"
)

// attest is the provenance of pushed, as Attest describes.
func attest(ctx context.Context, in SignInputs, t Target, pushed []Pushed, images []Artifact) ([]Evidence, error) {
	byName := make(map[string]Artifact, len(images))
	for _, a := range images {
		byName[a.Name] = a
	}
	for _, p := range pushed {
		if img, ok := byName[p.Name]; ok && t.Repository(img) != p.Repository {
			return nil, fmt.Errorf("%s: this source publishes it to %s, not %s", p.Name, t.Repository(img), p.Repository)
		}
	}
	subjects := subjectsOf(pushed)
	extra := make([][]string, len(subjects))
	for i, s := range subjects {
		img, ok := byName[s.image]
		if !ok {
			return nil, fmt.Errorf("%s: no image of that name was built from this source", s.image)
		}
		args, err := AttestArgs(in.Provenance, img)
		if err != nil {
			return nil, err
		}
		for _, p := range s.platforms {
			args = append(args, "--platform", p)
		}
		extra[i] = args
	}
	if err := checkPublished(ctx, t, pushed); err != nil {
		return nil, err
	}
	return runPerImage(ctx, subjectRefs(subjects), func(i int, p Pushed) (Evidence, error) {
		return in.publishStep(ctx, "attest", KindAttestation, slsaPredicateType, t, p, extra[i])
	})
}

// StepAttest is the name of the attest step.
const StepAttest = functions.Attest

var attestStep = imageStep{name: StepAttest, writes: true, next: adviceUntagged, run: (*ImageState).attest}

func (s *ImageState) attest(ctx context.Context) error {
	ev, err := attest(ctx, s.Signing, s.Target, s.Pushed, s.Built)
	if err != nil {
		return err
	}
	s.Evidence = append(s.Evidence, ev...)
	flow.Logf(ctx, "%d provenance attestation(s)", len(ev))
	return nil
}
