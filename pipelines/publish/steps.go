package publish

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"dagger.io/dagger"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/trivy"
)

// The image steps' names, as logs, errors, reports and docs use them.
const (
	StepPush   = "push-by-digest"
	StepScan   = "scan-digests"
	StepAttest = "attest"
	// StepSBOM writes each digest's CycloneDX SBOM and attests it.
	StepSBOM = "attest-sbom"
	StepSign = "sign"
	// StepVerifySigned verifies the signature and provenance with the signer's identity
	// before any tag moves.
	StepVerifySigned = "verify-signed"
	StepTag          = "tag"
	// StepVerify verifies one image, by tag or digest, against a signer its caller names:
	// the check before a deploy (verify). No publishing flow asks for it.
	StepVerify = "verify"
)

// publishing are the steps a flow that publishes runs when it names none: every step but
// verify.
var publishing = []string{StepPush, StepScan, StepAttest, StepSBOM, StepSign, StepVerifySigned, StepTag}

// ImageState is the state the image steps share: where the images go, what was built, and
// what each step found or wrote. It knows nothing of the flow around it (a push to dev, a
// release); the flow fills in the inputs and reads the outcomes.
type ImageState struct {
	Target Target
	Sign   SignInputs
	// Scanner scans the pushed digests under the producing system's policy.
	Scanner Scanner
	// Built are the artifacts built from the source (or described: attest needs only their
	// recipe).
	Built []Artifact
	// Ignore is the content of the ignore file; nil reads the pipeline source's.
	Ignore []byte
	// ReuseTag is a tag that names the source's image for good (sha-<commit>): an image
	// that carries it already keeps that digest and is not pushed again.
	ReuseTag string
	// Version is a version tag that never moves: the push stops when it is on another
	// digest already, before anything is scanned, signed or tagged.
	Version string
	// Tags are written by the tag step; Latest moves latest after them, for every image
	// together or for none, when StillLatest agrees right before.
	Tags        []string
	Latest      bool
	StillLatest StillLatest
	// DevOrder rechecks the commit order on dev right before dev moves (publish-dev).
	DevOrder DevOrder
	// Verify is the image and signer the verify step checks.
	Verify VerifyRequest
	// Log receives one line per outcome (nil: none).
	Log func(format string, args ...any)

	// Outcomes, as far as the steps got.
	Pushed   []Pushed
	Reused   []string
	Scans    []trivy.TargetVerdict
	Reports  *dagger.Directory
	Evidence []Evidence
	Verified []Verification
	Applied  []ApplyReport
}

// Advice is what the maintainer does when an image step fails, worded by each flow.
type Advice struct {
	// Untagged: a step before the tags failed, so nothing is tagged yet.
	Untagged string
	// Scan: Trivy failed to run, or found what the policy blocks.
	Scan string
	// Moved: a tag that never moves is on another digest already.
	Moved string
	// Tag: the tag step failed otherwise.
	Tag string
}

// Steps are the image steps in their one order — push by digest, scan those digests,
// attest, attest the SBOM, sign, verify all three, tag, and verify — over a flow's state S,
// in which at finds the images: those named, or every publishing step when none is. Each
// step's body does its work only: the flow checks the inputs once, before any step runs
// (CheckInputs, and a check-inputs step for what a run is given), and the runner alone
// names the step in an error.
func Steps[S any](adv Advice, at func(*S) *ImageState, names ...string) []flow.Step[S] {
	if len(names) == 0 {
		names = publishing
	}
	step := func(name string, writes bool, next string, run func(*ImageState, context.Context) error) flow.Step[S] {
		return flow.Step[S]{Name: name, Writes: writes, Next: next, Run: func(ctx context.Context, s *S) error {
			err := run(at(s), ctx)
			if adv.Moved != "" && MovedTag(err) {
				return flow.Advise(err, adv.Moved)
			}
			return err
		}}
	}
	all := []flow.Step[S]{
		step(StepPush, true, adv.Untagged, (*ImageState).push),
		step(StepScan, false, adv.Scan, (*ImageState).scan),
		step(StepAttest, true, adv.Untagged, (*ImageState).attest),
		step(StepSBOM, true, adv.Untagged, (*ImageState).attestSBOM),
		step(StepSign, true, adv.Untagged, (*ImageState).sign),
		step(StepVerifySigned, false, adv.Untagged, (*ImageState).verifySigned),
		step(StepTag, true, adv.Tag, (*ImageState).tag),
		step(StepVerify, false, "", (*ImageState).verify),
	}
	return slices.DeleteFunc(all, func(st flow.Step[S]) bool { return !slices.Contains(names, st.Name) })
}

// StepNames are the names of every image step, after the check-inputs step a run alone
// starts with.
func StepNames() []string {
	return append(append([]string{StepInputs}, publishing...), StepVerify, StepAssemble)
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
		return sign.check()
	}
	return nil
}

// checkGiven checks what the steps named are given to work on when they run alone: the
// built images for a push, else the pushed digests; a pipeline for the scans; tags for
// the tag step; an image and a signer to verify.
func (s *ImageState) checkGiven(names []string) error {
	if slices.Contains(names, StepVerify) {
		// It reads a published image, by any name: no registry organisation to check.
		return s.Verify.check()
	}
	var sign *SignInputs
	if Signs(names) {
		sign = &s.Sign
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
		return checkTags(s.Tags)
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
	}}, Steps(aloneAdvice, func(s *ImageState) *ImageState { return s }, names...)...)
	_, err := flow.Run(ctx, flow.Runner{Flow: fn, Log: s.Log}, steps, s)
	return err
}

// aloneAdvice: a step run alone keeps what it wrote, so running it again finishes it.
var aloneAdvice = Advice{
	Untagged: "no tag was written; re-run the step to finish: what is pushed and attached is kept",
	Scan: "if Trivy failed to run, re-run; if it found CRITICAL or HIGH vulnerabilities with a fix, update the packages " +
		"(or accept a finding in .trivyignore.yaml with a statement and an expiry) and build again",
	Moved: "a tag that never moves is on another digest: publish a higher version, or find out who wrote it",
	Tag:   "re-run to finish: tags already on their digest are kept",
}

// MovedTag is whether err is a tag that never moves found on another digest (now, or
// written by someone else meanwhile): re-running cannot help, a higher version can.
func MovedTag(err error) bool {
	var re *RegistryError
	return errors.As(err, &re) && re.Moved
}

// StillLatest is the GitHub half of the recheck before latest moves, asked right before
// the registry command runs: whether the release is still the highest published on
// GitHub, and the final versions above it that have a git tag. The registry command reads
// those versions' tags in every repository right before it writes latest (a release whose
// images are out while its GitHub release is not yet), so the window left is the
// command's start and its reads: a GitHub release published meanwhile is not seen; the
// release workflow serialises releases for that.
type StillLatest func(ctx context.Context) (ok bool, higher []string, err error)

// push pushes the built images by digest, reusing the digest of those that carry ReuseTag,
// then checks that Version, if any, is on none of the repositories but on the digest just
// pushed.
func (s *ImageState) push(ctx context.Context) error {
	existing, err := s.reusable(ctx)
	if err != nil {
		return err
	}
	var build []Artifact
	for i, a := range s.Built {
		if existing[i] == "" {
			build = append(build, a)
		} else {
			s.Reused = append(s.Reused, a.Name)
		}
	}
	var fresh []Pushed
	if len(build) > 0 {
		if fresh, err = pushAll(ctx, build, s.Target); err != nil {
			return err
		}
	}
	pushed := make([]Pushed, 0, len(s.Built))
	for i, a := range s.Built {
		if existing[i] != "" {
			pushed = append(pushed, Pushed{Name: a.Name, Repository: s.Target.Repository(a), Digest: existing[i]})
			continue
		}
		pushed = append(pushed, fresh[0])
		fresh = fresh[1:]
	}
	if len(s.Reused) > 0 {
		// A reused digest may be an index: its platform images are scanned and signed too.
		if pushed, err = ResolvePlatforms(ctx, s.Target, pushed); err != nil {
			return err
		}
	}
	return s.keepPushed(ctx, pushed)
}

// keepPushed checks the version of what was pushed, keeps it as the images later steps
// work on, and logs each reference.
func (s *ImageState) keepPushed(ctx context.Context, pushed []Pushed) error {
	if err := s.checkVersion(ctx, pushed); err != nil {
		return err
	}
	s.Pushed = pushed
	for _, p := range pushed {
		flow.Logf(ctx, "%s", p.Ref())
	}
	return nil
}

// reusable finds, per built image, the digest ReuseTag names already ("" for none). Builds
// are not always reproducible, so a re-run on a fresh engine may build another digest for
// the same commit; since the commit tag never moves and is written only after its digest
// was scanned, attested and signed, the digest it names is the commit's image.
func (s *ImageState) reusable(ctx context.Context) ([]string, error) {
	existing := make([]string, len(s.Built))
	if s.ReuseTag == "" {
		return existing, nil
	}
	err := fanout.Each(ctx, 0, len(s.Built), func(ctx context.Context, i int) error {
		repo := s.Target.Repository(s.Built[i])
		tags, err := s.Target.ResolveTags(ctx, repo, []string{s.ReuseTag})
		if err != nil {
			return fmt.Errorf("%s: looking for %s: %w", s.Built[i].Name, s.ReuseTag, err)
		}
		existing[i] = tags[s.ReuseTag]
		return nil
	})
	return existing, err
}

// checkVersion plans Version on each pushed digest (the registry command's plan-tags):
// absent, or on the digest just pushed (a re-run), the flow goes on; on another digest of
// any repository it stops, naming each.
func (s *ImageState) checkVersion(ctx context.Context, pushed []Pushed) error {
	if s.Version == "" {
		return nil
	}
	_, err := s.Target.planTags(ctx, pushed, []string{s.Version})
	return err
}

// scan scans exactly the pushed digests, with no credential in the graph.
func (s *ImageState) scan(ctx context.Context) error {
	ignore := s.Ignore
	if ignore == nil {
		var err error
		if ignore, err = s.Scanner.IgnoreFile(ctx); err != nil {
			return err
		}
	}
	var err error
	s.Reports, s.Scans, err = scanDigests(ctx, s.Scanner, s.Pushed, ignore)
	if err != nil {
		return err
	}
	flow.Logf(ctx, "%d digest(s) passed", len(s.Scans))
	return nil
}

func (s *ImageState) attest(ctx context.Context) error {
	ev, err := attest(ctx, s.Sign, s.Target, s.Pushed, s.Built)
	if err != nil {
		return err
	}
	s.Evidence = append(s.Evidence, ev...)
	flow.Logf(ctx, "%d provenance attestation(s)", len(ev))
	return nil
}

func (s *ImageState) attestSBOM(ctx context.Context) error {
	ev, err := attestSBOMs(ctx, s.Sign, s.Scanner, s.Target, s.Pushed)
	if err != nil {
		return err
	}
	s.Evidence = append(s.Evidence, ev...)
	flow.Logf(ctx, "%d SBOM attestation(s)", len(ev))
	return nil
}

func (s *ImageState) sign(ctx context.Context) error {
	ev, err := sign(ctx, s.Sign, s.Target, s.Pushed)
	if err != nil {
		return err
	}
	s.Evidence = append(s.Evidence, ev...)
	flow.Logf(ctx, "%d signature(s)", len(ev))
	return nil
}

func (s *ImageState) verifySigned(ctx context.Context) error {
	var err error
	if s.Verified, err = verifySigned(ctx, s.Sign, s.Target, s.Pushed, s.Evidence); err != nil {
		return err
	}
	for _, v := range s.Verified {
		flow.Logf(ctx, "%s: %d bundle(s) verified", v.Ref, len(v.Verified))
	}
	return nil
}

// verify verifies the one image of the request against the signer it names.
func (s *ImageState) verify(ctx context.Context) error {
	v, err := s.Verify.verify(ctx)
	if err != nil {
		return err
	}
	s.Verified = append(s.Verified, v)
	return nil
}

// tag points Tags at each pushed digest (nothing is written if any of them is refused),
// then, when Latest, moves latest for every image together or for none.
func (s *ImageState) tag(ctx context.Context) error {
	var err error
	s.Applied, err = tagImages(ctx, s.Target, s.Pushed, s.Tags, s.DevOrder)
	if err != nil {
		return err
	}
	if s.Latest {
		latest, err := MoveLatest(ctx, s.Target, s.Pushed, s.StillLatest)
		addLatest(s.Applied, latest)
		if err != nil {
			return err
		}
	}
	for _, r := range s.Applied {
		flow.Logf(ctx, "%s@%s: %d written, %d kept, %d skipped", r.Image, r.Digest, len(r.Written), len(r.Kept), len(r.Skipped))
	}
	return nil
}

// addLatest records latest's outcome in each image's report, as the other tags' are.
func addLatest(reports []ApplyReport, latest LatestReport) {
	for i := range reports {
		for _, m := range latest.Moves {
			if m.Repo != reports[i].Image {
				continue
			}
			a := TagAction{Tag: TagLatest, Class: "moving", Action: m.Action, From: m.From}
			switch {
			case m.Action == ActionKeep:
				reports[i].Kept = append(reports[i].Kept, a)
			case latest.Skipped != "":
				reports[i].Skipped = append(reports[i].Skipped, SkippedTag{Tag: TagLatest, Reason: latest.Skipped})
			case slices.Contains(latest.Written, m.Repo):
				reports[i].Written = append(reports[i].Written, a)
			}
		}
	}
}
