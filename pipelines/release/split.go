package release

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/pipelines/publish"
)

// A release built per platform: each platform's push job (PushPlatformJob) runs on a
// runner of that platform, so nothing is emulated, and pushes that platform's images by
// digest; the assemble job (AssembleJob) builds each image's index from them and prints the
// handoff PushJob prints, which the scan and publish jobs read unchanged.

// StepAssemble builds and pushes the indexes of a release built per platform.
const StepAssemble = publish.StepAssemble

// ParsePlatformHandoff reads what a release's platform push job printed: its form, as
// publish.ParsePlatformHandoff checks it, and the release it names, as a push job's
// handoff is checked.
func ParsePlatformHandoff(data string) (publish.PlatformHandoff, error) {
	h, err := publish.ParsePlatformHandoff(data)
	if err != nil {
		return publish.PlatformHandoff{}, err
	}
	if err := handoffOf(h).checkForm(); err != nil {
		return publish.PlatformHandoff{}, fmt.Errorf("the %s handoff: %w", h.Platform, err)
	}
	return h, nil
}

// IsPlatformHandoffs reports whether data is the platform push jobs' outputs, given as one
// JSON array, rather than one job's handoff (an object).
func IsPlatformHandoffs(data string) bool {
	return strings.HasPrefix(strings.TrimSpace(data), "[")
}

// ParsePlatformHandoffs reads the platform push jobs' outputs, given as one JSON array.
func ParsePlatformHandoffs(data string) ([]publish.PlatformHandoff, error) {
	return publish.ParsePlatformOutputs(data, ParsePlatformHandoff)
}

// handoffOf is the release and images of h as a push job's handoff.
func handoffOf(h publish.PlatformHandoff) Handoff {
	return Handoff{Repo: h.Repo, Tag: h.Tag, Version: h.Version, Commit: h.Commit, Images: h.Images}
}

// PushPlatformJob builds every image of the tagged commit for platform only, checks its
// version and pushes each by digest, untagged, as a single image: the platform must be one
// the release publishes (cfg.Platforms).
func PushPlatformJob(ctx context.Context, cfg Config, tag string, platform dagger.Platform) (publish.PlatformHandoff, error) {
	publishes := cfg.Platforms
	cfg.Platforms = []dagger.Platform{platform}
	s := newState(cfg, tag)
	if _, err := s.run(ctx, pushPlatformJobSteps(publishes, platform), false); err != nil {
		return publish.PlatformHandoff{}, err
	}
	p := s.plan
	return publish.PlatformHandoff{Repo: p.Repo, Tag: p.Tag, Version: p.Version, Commit: p.Commit,
		PlatformPush: publish.PlatformPush{Platform: string(platform), Images: s.images.Pushed}}, nil
}

// pushPlatformJobSteps are the release's steps up to push-by-digest, for platform alone of
// those the release publishes: the build refuses another, and the push pushes single
// images.
func pushPlatformJobSteps(publishes []dagger.Platform, platform dagger.Platform) []flow.Step[releaseState] {
	// The platform is checked by the build, the step it concerns.
	build := buildStep
	build.Run = func(ctx context.Context, s *releaseState) error {
		if err := publish.CheckPlatform(platform, publishes); err != nil {
			return err
		}
		return buildStep.Run(ctx, s)
	}
	push := flow.Step[releaseState]{Name: StepPush, Writes: true, Next: nextUntagged, Run: func(ctx context.Context, s *releaseState) error {
		pushed, err := publish.PushPlatform(ctx, s.images.Built, platform, s.images.Target)
		if err != nil {
			return err
		}
		s.images.Pushed = pushed.Images
		for _, p := range pushed.Images {
			flow.Logf(ctx, "%s (%s)", p.Ref(), platform)
		}
		return nil
	}}
	return []flow.Step[releaseState]{planStep, sourceStep, build, versionStep, push}
}

// AssembleJob checks the tag again (release-plan), checks that the platform jobs'
// handoffs are of this release, one per platform it publishes, each with every image in its
// repository, then pushes each image's index of those platform images by digest, untagged.
// It builds nothing. It returns the handoff a push job returns.
func AssembleJob(ctx context.Context, cfg Config, tag string, parts []publish.PlatformHandoff) (Handoff, error) {
	s := newState(cfg, tag)
	if _, err := s.run(ctx, assembleJobSteps(parts), false); err != nil {
		return Handoff{}, err
	}
	p := s.plan
	return Handoff{Repo: p.Repo, Tag: p.Tag, Version: p.Version, Commit: p.Commit, Images: s.images.Pushed}, nil
}

// assembleJobSteps are release-plan, then assemble-index over the platform jobs' handoffs.
func assembleJobSteps(parts []publish.PlatformHandoff) []flow.Step[releaseState] {
	assemble := flow.Step[releaseState]{Name: StepAssemble, Writes: true, Next: nextUntagged, Run: func(ctx context.Context, s *releaseState) error {
		var errs []error
		pushes := make([]publish.PlatformPush, len(parts))
		for i, part := range parts {
			if err := handoffOf(part).matches(s.cfg, s.plan); err != nil {
				errs = append(errs, fmt.Errorf("the %s push: %w", part.Platform, err))
			}
			pushes[i] = part.PlatformPush
		}
		if err := errors.Join(errs...); err != nil {
			return flow.Advise(err, "run the platform push jobs of this tag, and pass their output on unchanged")
		}
		return s.images.Assemble(ctx, platformStrings(s.cfg.Platforms), pushes)
	}}
	return []flow.Step[releaseState]{planStep, assemble}
}

func platformStrings(ps []dagger.Platform) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return out
}
