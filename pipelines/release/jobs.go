package release

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"dagger.io/dagger"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/registry"
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
	steps := append(prepareSteps(true), imageSteps(tag, StepPush)...)
	if _, err := s.run(ctx, steps, false); err != nil {
		return Handoff{}, err
	}
	p := s.plan
	return Handoff{Repo: p.Repo, Tag: p.Tag, Version: p.Version, Commit: p.Commit, Images: s.images.Pushed}, nil
}

// ScanJob scans the handoff's digests with the ignore file of its commit. It calls neither
// GitHub's API nor the registry with credentials: Trivy pulls the digests anonymously.
func ScanJob(ctx context.Context, cfg Config, h Handoff) (Handoff, *dagger.Directory, error) {
	s := newState(cfg, h.Tag)
	s.plan = h.plan()
	src := cfg.gitRepo().Commit(h.Commit).Tree(dagger.GitRefTreeOpts{DiscardGitDir: true})
	s.setPipeline(cfg.pipeline(src))
	// The platform images come from the registry's index, read anonymously as the scan
	// pulls them: the handoff's list must agree with it.
	pushed, err := publish.ResolvePlatforms(ctx, publish.Target{RegistryOptions: cfg.Images.Target.RegistryOptions}, h.Images)
	if err != nil {
		return h, nil, stepErr(StepScan, h.Tag, "pass the push job's output on unchanged, or run the push job again", err)
	}
	s.images.Pushed = pushed
	_, err = flow.Run(ctx, cfg.runner(h.Tag, false), imageSteps(h.Tag, StepScan), s)
	h.Scans = s.scanRecords()
	return h, s.images.Reports, err
}

// PublishJob attests, signs and tags the handoff's digests once each passed its scan. pushed
// is the push job's own handoff: the scan job's must carry exactly its digests. The plan is
// computed again, so latest follows the releases published by now.
func PublishJob(ctx context.Context, cfg Config, h, pushed Handoff) (Report, error) {
	s := newState(cfg, h.Tag)
	s.plan = h.plan()
	s.images.Pushed, s.handoffScans = h.Images, h.Scans
	checkHandoff := flow.Step[state]{Name: StepPlan, Run: func(ctx context.Context, s *state) error {
		err := errors.Join(h.matches(cfg, s.plan), h.samePush(pushed), h.scansPassed())
		return stepErr(StepAttest, h.Tag, "run the release's push and scan jobs of this tag first, and pass their output on unchanged", err)
	}}
	// The provenance names each image's Dockerfile and build arguments, which the source
	// gives without a build: the digests are the push job's, nothing is built again (on a
	// fresh runner that would take minutes, and change nothing).
	describe := flow.Step[state]{Name: StepDescribe, Run: func(ctx context.Context, s *state) error {
		images, err := Describe(ctx, cfg, s.plan, s.pipeline.Source)
		if err != nil {
			return err
		}
		s.images.Built = images
		err = h.tiedTo(cfg.Images.Target, images)
		if err == nil {
			// What is attested and signed is what the registry's indexes list.
			s.images.Pushed, err = publish.ResolvePlatforms(ctx, cfg.Images.Target, h.Images)
		}
		return stepErr(StepAttest, h.Tag, "pass the push and scan jobs' output on unchanged", err)
	}}
	steps := slices.Concat([]flow.Step[state]{planStep(false), checkHandoff, sourceStep, describe},
		imageSteps(h.Tag, StepAttest, StepSBOM, StepSign, StepVerifySigned, StepTag))
	rep, err := s.run(ctx, steps, false)
	if rep.Version == "" {
		rep.Version, rep.Commit = h.Version, h.Commit
	}
	return rep, err
}

// ReleaseJob creates the GitHub release once both images are published. Run alone again
// after a failure, it passes without changes if the earlier attempt created the release.
// It does not read CI again: the images it requires were published only after the gates,
// CI included, passed in the publish job, and its token has contents: write only.
func ReleaseJob(ctx context.Context, cfg Config, tag string) (GitHubRelease, error) {
	cfg.Gates.CIChecked = true
	s := newState(cfg, tag)
	plan := flow.Step[state]{Name: StepPlan, Run: func(ctx context.Context, s *state) error {
		plan, err := planAllowingItsRelease(ctx, cfg, tag)
		if err != nil {
			return err
		}
		s.setPlan(plan)
		return stepErr(StepGHRelease, tag, "publish the images first (the release's publish job), then run this step",
			imagesPublished(ctx, cfg, plan))
	}}
	_, err := s.run(ctx, []flow.Step[state]{plan, notesStep, publishReleaseStep}, false)
	return s.rel, err
}

// imagesPublished checks that every image of the plan carries its version tag, reading the
// registry with the target's login if any (public images need none).
func imagesPublished(ctx context.Context, cfg Config, plan releasegate.Plan) error {
	var errs []error
	for _, img := range plan.Images {
		repo := cfg.Images.Target.Registry + "/" + img.Repository
		found, err := registry.ResolveTags(ctx, repo, []string{plan.Version}, cfg.Images.Target.Auth, cfg.Images.Target.RegistryOptions...)
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
