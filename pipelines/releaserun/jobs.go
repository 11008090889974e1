package releaserun

import (
	"context"
	"errors"
	"fmt"

	"dagger.io/dagger"

	"dagger/shipyard/internal/registry"
	"dagger/shipyard/pipelines/release"
)

// The release workflow's jobs, each one step with only the credentials it needs: Prepare
// (GitHub read), PushJob (registry), ScanJob (none), PublishJob (registry, OIDC token) and
// ReleaseJob (GitHub contents: write). Each checks the tag again rather than trusting the
// previous job, and prints the handoff the next one reads.

// PushJob builds both images at the tagged commit, checks their version and pushes them by
// digest, untagged.
func PushJob(ctx context.Context, cfg Config, tag string) (Handoff, error) {
	plan, err := Plan(ctx, cfg, tag)
	if err != nil {
		return Handoff{}, err
	}
	if err := cfg.Images.checkTarget(plan); err != nil {
		return Handoff{}, stepErr(StepPush, tag, nextNothingPublished, err)
	}
	src, err := Source(ctx, cfg, plan)
	if err != nil {
		return Handoff{}, err
	}
	p, images, err := Build(ctx, cfg, plan, src)
	if err != nil {
		return Handoff{}, err
	}
	if err := CheckVersions(ctx, cfg, plan, p, images); err != nil {
		return Handoff{}, err
	}
	pushed, err := Push(ctx, cfg, plan, images)
	if err != nil {
		return Handoff{}, err
	}
	return Handoff{Repo: plan.Repo, Tag: plan.Tag, Version: plan.Version, Commit: plan.Commit, Images: pushed}, nil
}

// ScanJob scans the handoff's digests with the ignore file of its commit. It calls neither
// GitHub's API nor the registry with credentials: Trivy pulls the digests anonymously.
func ScanJob(ctx context.Context, cfg Config, h Handoff) (Handoff, *dagger.Directory, error) {
	plan := release.Plan{Repo: h.Repo, Tag: h.Tag, Version: h.Version, Commit: h.Commit}
	src := cfg.gitRepo().Commit(h.Commit).Tree(dagger.GitRefTreeOpts{DiscardGitDir: true})
	dir, scans, err := Scan(ctx, cfg, plan, cfg.pipeline(src), h.Images)
	h.Scans = scans
	return h, dir, err
}

// PublishJob attests, signs and tags the handoff's digests once each passed its scan. pushed
// is the push job's own handoff: the scan job's must carry exactly its digests. The plan is
// computed again, so latest follows the releases published by now.
func PublishJob(ctx context.Context, cfg Config, h, pushed Handoff) (Report, error) {
	rep := Report{Repo: h.Repo, Tag: h.Tag, Version: h.Version, Commit: h.Commit}
	fail := func(err error) (Report, error) {
		rep.Failed = FailedStep(err)
		return rep, err
	}
	plan, err := Plan(ctx, cfg, h.Tag)
	if err != nil {
		return fail(err)
	}
	if err := errors.Join(h.matches(cfg, plan), h.samePush(pushed), h.scansPassed()); err != nil {
		return fail(stepErr(StepAttest, h.Tag, "run the release's push and scan jobs of this tag first, and pass their output on unchanged", err))
	}
	src, err := Source(ctx, cfg, plan)
	if err != nil {
		return fail(err)
	}
	// The provenance names each image's Dockerfile and build arguments, which the source
	// gives without a build: the digests are the push job's, nothing is built again (on a
	// fresh runner that would take minutes, and change nothing).
	images, err := Describe(ctx, cfg, plan, src)
	if err != nil {
		return fail(err)
	}
	if err := h.tiedTo(cfg.Images.Target, images); err != nil {
		return fail(stepErr(StepAttest, h.Tag, "pass the push and scan jobs' output on unchanged", err))
	}
	rep.Images = plannedImages(cfg, plan, images)
	for i := range rep.Images {
		rep.Images[i].Tags = nil
		for _, p := range h.Images {
			if p.Name == rep.Images[i].Name {
				rep.Images[i].Digest = p.Digest
			}
		}
	}
	rep.addScans(h.Scans)
	attestations, err := Attest(ctx, cfg, plan, h.Images, images)
	if err != nil {
		return fail(err)
	}
	rep.addEvidence(attestations)
	signatures, err := Sign(ctx, cfg, plan, h.Images)
	if err != nil {
		return fail(err)
	}
	rep.addEvidence(signatures)
	if err := VerifySigned(ctx, cfg, plan, h.Images, append(attestations, signatures...)); err != nil {
		return fail(err)
	}
	applied, err := Tag(ctx, cfg, plan, h.Images)
	rep.addTags(applied)
	if err != nil {
		return fail(err)
	}
	return rep, nil
}

// ReleaseJob creates the GitHub release once both images are published. Run alone again
// after a failure, it passes without changes if the earlier attempt created the release.
func ReleaseJob(ctx context.Context, cfg Config, tag string) (GitHubRelease, error) {
	plan, err := planAllowingItsRelease(ctx, cfg, tag)
	if err != nil {
		return GitHubRelease{}, err
	}
	if err := imagesPublished(ctx, cfg, plan); err != nil {
		return GitHubRelease{}, stepErr(StepGHRelease, tag, "publish the images first (the release's publish job), then run this step", err)
	}
	body, err := ReleaseBody(ctx, cfg, plan)
	if err != nil {
		return GitHubRelease{}, err
	}
	return PublishRelease(ctx, cfg, plan, body)
}

// imagesPublished checks that every image of the plan carries its version tag, reading the
// registry with the target's login if any (public images need none).
func imagesPublished(ctx context.Context, cfg Config, plan release.Plan) error {
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
