package publish

import (
	"context"
	"dagger/shipyard/internal/flow"
	"errors"
	"slices"
)

// StepInputs checks what a run is given before any image step runs.
const StepInputs = "check-inputs"

// publishing are the steps a flow that publishes runs when it names none, in their one
// order: every step but verify.
var publishing = []imageStep{pushStep, scanStep, attestStep, sbomStep, signStep, verifySignedStep, storeAttestationsStep, tagStep}

// Steps are the image steps in their one order — push by digest, scan those digests,
// attest, attest the SBOM, sign, verify all three, store the attestations in the forge's
// store, tag, and verify — over a flow's state S,
// in which at finds the images: those named, or every publishing step when none is. Each
// step's body does its work only: the flow checks the inputs once, before any step runs
// (CheckInputs, and a check-inputs step for what a run is given), and the runner alone
// names the step in an error.
func Steps[S any](adv Advice, at func(*S) *ImageState, names ...string) []flow.Step[S] {
	var out []flow.Step[S]
	for _, st := range append(slices.Clone(publishing), verifyStep) {
		if len(names) == 0 && st.name == StepVerify || len(names) > 0 && !slices.Contains(names, st.name) {
			continue
		}
		out = append(out, flow.Step[S]{Name: st.name, Writes: st.writes, Next: st.next.of(adv), Run: func(ctx context.Context, s *S) error {
			err := st.run(at(s), ctx)
			if adv.Moved != "" && MovedTag(err) {
				return flow.Advise(err, adv.Moved)
			}
			return err
		}})
	}
	return out
}

// publishingNames are the names of the publishing steps, in their order.
func publishingNames() []string {
	out := make([]string, len(publishing))
	for i, st := range publishing {
		out[i] = st.name
	}
	return out
}

// StepNames are the names of every image step, after the check-inputs step a run alone
// starts with.
func StepNames() []string {
	return append(append([]string{StepInputs}, publishingNames()...), StepVerify, StepAssemble)
}

// Signs is whether any step named signs: it then needs the signing inputs.
func Signs(names []string) bool {
	return slices.ContainsFunc(names, func(n string) bool {
		return n == StepAttest || n == StepSBOM || n == StepSign || n == StepVerifySigned
	})
}

// CheckInputs checks what the image steps of a flow are configured with, once, when the
// run is built: where the images go, and, for a flow that signs, the signing inputs (nil
// for one that does not).
func CheckInputs(t Target, sign *SignInputs) error {
	if err := t.check(); err != nil {
		return err
	}
	if sign != nil {
		return sign.Check()
	}
	return nil
}

// checkGiven checks what the steps named are given to work on when they run alone: the
// built images for a push, else the pushed digests; a pipeline for the scans; tags for
// the tag step; an image and a signer to verify.
func (s *ImageState) checkGiven(names []string) error {
	if slices.Contains(names, StepVerify) {
		// It reads a published image, by any name: no registry organisation to check.
		return s.VerifyRequest.check()
	}
	var sign *SignInputs
	if Signs(names) {
		sign = &s.Signing
	}
	// A scan alone pulls the digests it is given, anonymously: it names no target.
	if !slices.Equal(names, []string{StepScan}) {
		if err := CheckInputs(s.Target, sign); err != nil {
			return err
		}
	}
	if slices.Contains(names, StepPush) {
		if len(s.Built) == 0 {
			return errors.New("no images to push")
		}
	} else if err := checkPushed(s.Pushed); err != nil {
		return err
	}
	if (slices.Contains(names, StepScan) || slices.Contains(names, StepSBOM)) && s.Scanner == nil {
		return errors.New("no scanner to scan the digests and write their SBOMs")
	}
	if slices.Contains(names, StepTag) {
		if s.Latest && s.Target.Tags.Latest == "" {
			return errors.New("the latest tag is to move, but the tag policy names none")
		}
		return checkTags(s.Target.Tags, s.Tags)
	}
	return nil
}

// Alone runs the steps named as the whole flow fn (a function that runs part of a publish,
// e.g. sign or tag-images): what they are given checked first, in a check-inputs step,
// then each step in its order. A failure is a flow.Error that names fn and the step.
func Alone(ctx context.Context, fn string, s *ImageState, names ...string) error {
	steps := append([]flow.Step[ImageState]{{
		Name: StepInputs, Next: "nothing was written: give what the error names",
		Run: func(context.Context, *ImageState) error { return s.checkGiven(names) },
	}}, Steps(aloneAdvice(s.Scanner), func(s *ImageState) *ImageState { return s }, names...)...)
	_, err := flow.Run(ctx, flow.Runner{Flow: fn, Log: s.Log}, steps, s)
	return err
}

// aloneAdvice: a step run alone keeps what it wrote, so running it again finishes it; a
// blocked scan is fixed as the scanner's policy says.
func aloneAdvice(sc Scanner) Advice {
	return Advice{
		Untagged: untaggedAdvice,
		Scan:     scanAdvice(sc, "build again"),
		Moved:    "a tag that never moves is on another digest: publish a higher version, or find out who wrote it",
		Tag:      "re-run to finish: tags already on their digest are kept",
	}
}

const untaggedAdvice = "no tag was written; re-run the step to finish: what is pushed and attached is kept"

// scanAdvice is what to do after a failed scan: re-run one that did not run; else what
// the scanner's policy says (Scanner.Fix), then then.
func scanAdvice(sc Scanner, then string) string {
	fix := "fix what its reports name"
	if sc != nil {
		fix = sc.Fix()
	}
	return "if the scanner failed to run, re-run; if its policy blocks an image, " + fix + ", and " + then
}

// MovedTag is whether err is a tag that never moves found on another digest (now, or
// written by someone else meanwhile): re-running cannot help, a higher version can.
func MovedTag(err error) bool {
	var re *RegistryError
	return errors.As(err, &re) && re.Moved
}
