package release

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"dagger.io/dagger"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/releasegate"
)

// The release workflow's jobs, each one step with only the credentials it needs: Prepare
// (GitHub read), PushJob (registry), ScanJob (none), PublishJob (registry, OIDC token) and
// ReleaseJob (GitHub contents: write). Each checks the tag again rather than trusting the
// previous job, and prints the handoff the next one reads.

// PushJob builds both images at the tagged commit, checks their version and pushes them by
// digest, untagged.
func PushJob(ctx context.Context, cfg Config, tag string) (Handoff, error) {
	s := newState(cfg, tag)
	if _, err := s.run(ctx, pushJobSteps(), false); err != nil {
		return Handoff{}, err
	}
	p := s.plan
	return Handoff{Repo: p.Repo, Tag: p.Tag, Version: p.Version, Commit: p.Commit, Images: s.images.Pushed}, nil
}

// pushJobSteps are the release's steps up to push-by-digest.
func pushJobSteps() []flow.Step[releaseState] {
	return append(prepareSteps(), imageSteps(StepPush)...)
}

// ScanJob scans the handoff's digests with the Trivy and the ignore file of its commit,
// the tree its tag names (source). It calls neither GitHub's API nor the registry with
// credentials: Trivy pulls the digests anonymously.
func ScanJob(ctx context.Context, cfg Config, h Handoff) (Handoff, *dagger.Directory, error) {
	s := newState(cfg, h.Tag)
	s.plan, s.handoff = h.plan(), h
	_, err := s.run(ctx, scanJobSteps(), false)
	h.Scans = s.scanRecords()
	return h, s.images.Reports, err
}

// scanJobSteps check the handoff against the registry, fetch the handoff's tagged commit
// (its pins and ignore file), then scan its digests.
func scanJobSteps() []flow.Step[releaseState] {
	return append([]flow.Step[releaseState]{scanHandoffStep, sourceStep}, imageSteps(StepScan)...)
}

// scanHandoffStep reads the platform images from the registry's index, anonymously as the
// scan pulls them: the handoff's list must agree with it.
var scanHandoffStep = flow.Step[releaseState]{Name: StepCheckHandoff, Next: "pass the push job's output on unchanged, or run the push job again",
	Run: func(ctx context.Context, s *releaseState) error {
		var err error
		anonymous := publish.Target{RegistryTool: s.cfg.Images.Target.RegistryTool}
		s.images.Pushed, err = publish.ResolvePlatforms(ctx, anonymous, s.handoff.Images)
		return err
	}}

// PublishJob attests, signs and tags the handoff's digests once each passed its scan. pushed
// is the push job's own handoff: the scan job's must carry exactly its digests. The plan is
// computed again, so latest follows the releases published by now.
func PublishJob(ctx context.Context, cfg Config, h, pushed Handoff) (Report, error) {
	s := newState(cfg, h.Tag)
	s.plan, s.handoff, s.pushHandoff = h.plan(), h, pushed
	s.images.Pushed, s.handoffScans = h.Images, h.Scans
	rep, err := s.run(ctx, publishJobSteps(), false)
	if rep.Version == "" {
		rep.Version, rep.Commit = h.Version, h.Commit
	}
	return rep, err
}

// publishJobSteps are release-plan again, the handoff's checks, the source's image recipes,
// then the image steps after the scan.
func publishJobSteps() []flow.Step[releaseState] {
	return slices.Concat([]flow.Step[releaseState]{{Name: StepPlan, Run: planRelease}, publishHandoffStep, sourceStep, describeStep},
		imageSteps(StepAttest, StepSBOM, StepSign, StepVerifySigned, StepStoreAttestations, StepTag))
}

var publishHandoffStep = flow.Step[releaseState]{Name: StepCheckHandoff,
	Next: "run the release's push and scan jobs of this tag first, and pass their output on unchanged",
	Run: func(ctx context.Context, s *releaseState) error {
		h := s.handoff
		return errors.Join(h.matches(s.cfg, s.plan), h.samePush(s.pushHandoff), h.scansPassed())
	}}

// describeStep reads each image's Dockerfile and build arguments, which the provenance names,
// from the source without a build: the digests are the push job's, nothing is built again
// (on a fresh runner that would take minutes, and change nothing).
var describeStep = flow.Step[releaseState]{Name: StepDescribe, Next: nextUntagged, Run: func(ctx context.Context, s *releaseState) error {
	images, err := Describe(ctx, s.cfg, s.plan, s.pipeline.Source)
	if err != nil {
		return err
	}
	s.setBuilt(images)
	err = s.handoff.tiedTo(s.cfg.Images.Target, s.images.Built)
	if err == nil {
		// What is attested and signed is what the registry's indexes list.
		s.images.Pushed, err = publish.ResolvePlatforms(ctx, s.cfg.Images.Target, s.handoff.Images)
	}
	return flow.Advise(err, "pass the push and scan jobs' output on unchanged")
}}

// ReleaseJob creates the GitHub release once both images are published. Run alone again
// after a failure, it passes without changes if the earlier attempt created the release.
// It does not read CI again: the images it requires were published only after the gates,
// CI included, passed in the publish job, and its token has contents: write only.
func ReleaseJob(ctx context.Context, cfg Config, tag string) (GitHubRelease, error) {
	cfg.Gates.CIChecked = true
	s := newState(cfg, tag)
	_, err := s.run(ctx, releaseJobSteps(), false)
	return s.rel, err
}

// releaseJobSteps are release-plan, which lets the tag's own release through and requires
// the images published, then the GitHub release.
func releaseJobSteps() []flow.Step[releaseState] {
	return []flow.Step[releaseState]{releaseJobPlanStep, notesStep(nextPublishRelease), publishReleaseStep}
}

var releaseJobPlanStep = flow.Step[releaseState]{Name: StepPlan, Run: func(ctx context.Context, s *releaseState) error {
	plan, err := planAllowingItsRelease(ctx, s.cfg, s.tag)
	if err != nil {
		return err
	}
	s.setPlan(plan)
	return flow.Advise(imagesPublished(ctx, s.cfg, plan), "publish the images first (the release's publish job), then run this step")
}}

// imagesPublished checks that every image of the plan carries its version tag, reading the
// registry with the target's login if any (public images need none).
func imagesPublished(ctx context.Context, cfg Config, plan releasegate.Plan) error {
	var errs []error
	for _, img := range plan.Images {
		repo := cfg.Images.Target.Registry + "/" + img.Repository
		found, err := cfg.Images.Target.ResolveTags(ctx, repo, []string{plan.Version})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, ok := found[plan.Version]; !ok {
			errs = append(errs, fmt.Errorf("%s:%s is not published", repo, plan.Version))
		}
	}
	return errors.Join(errs...)
}
