package release

import (
	"context"
	"slices"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/ci/artifact"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/releasegate"
)

// releaseState is what the release's steps share, and its jobs': the plan, the source's
// pipeline, the image steps' neutral state and the GitHub release.
type releaseState struct {
	cfg      Config
	tag      string
	plan     releasegate.Plan
	pipeline *ci.Pipeline
	images   publish.ImageState
	// built are the images as the CI pipeline built (or described) them; images.Built are
	// the same as the artifacts publishing works on.
	built []ci.Image
	// builtDigests are the digests a dry run would push.
	builtDigests map[string]publish.Pushed
	// handoff is what the previous job handed over, pushHandoff the push job's own.
	handoff, pushHandoff Handoff
	// handoffScans are the verdicts a previous job handed over.
	handoffScans []ScanRecord
	body         Body
	rel          GitHubRelease
}

func newState(cfg Config, tag string) *releaseState {
	return &releaseState{cfg: cfg, tag: tag, images: publish.ImageState{
		Target: cfg.Images.Target, Signing: cfg.Images.Sign, Log: cfg.Log, Store: cfg.attestationStore(),
	}}
}

// setPlan records the plan and what it decides for the image steps: the version tag, which
// never moves, latest, and the source of the provenance.
func (s *releaseState) setPlan(plan releasegate.Plan) {
	s.plan = plan
	s.images.Version, s.images.Tags, s.images.Latest = plan.Version, []string{plan.Version}, plan.Latest
	s.images.StillLatest = stillLatest(s.cfg, s.tag)
	s.images.Signing = s.cfg.Images.withSource(plan)
}

// setBuilt records the images built, and the same as publishing's artifacts.
func (s *releaseState) setBuilt(images []ci.Image) {
	s.built, s.images.Built = images, artifact.Of(images)
}

func (s *releaseState) setPipeline(p *ci.Pipeline) {
	s.pipeline, s.images.Scanner = p, artifact.Scanner(p)
}

// planStep runs release-plan, and refuses, before anything is built, a registry target
// the plan does not name (a dry run, which pushes nothing, needs none).
var planStep = flow.Step[releaseState]{Name: StepPlan,
	Run: func(ctx context.Context, s *releaseState) error {
		if err := planRelease(ctx, s); err != nil {
			return err
		}
		return flow.Advise(s.cfg.Images.checkTarget(s.plan), nextNothingPublished)
	},
	DryRun: planRelease,
}

// planRelease runs the gates and records the plan.
func planRelease(ctx context.Context, s *releaseState) error {
	plan, err := CheckGates(ctx, s.cfg, s.tag)
	if err == nil {
		s.setPlan(plan)
	}
	return err
}

// sourceStep fetches the tagged commit's tree and sets up its pipeline, with the images
// its pins file sets.
var sourceStep = flow.Step[releaseState]{Name: StepSource, Next: nextNothingPublished, Run: func(ctx context.Context, s *releaseState) error {
	src, err := Source(ctx, s.cfg, s.plan)
	if err != nil {
		return err
	}
	p, err := s.cfg.taggedPipeline(ctx, src, s.plan.Tag)
	if err == nil {
		s.setPipeline(p)
	}
	return err
}}

var buildStep = flow.Step[releaseState]{Name: StepBuild, Next: nextNothingPublished, Run: func(ctx context.Context, s *releaseState) error {
	images, err := Build(ctx, s.cfg, s.plan, s.pipeline)
	s.setBuilt(images)
	return err
}}

var versionStep = flow.Step[releaseState]{Name: StepVersion, Next: nextNothingPublished, Run: func(ctx context.Context, s *releaseState) error {
	return CheckVersions(ctx, s.cfg, s.plan, s.pipeline, s.built)
}}

// notesStep composes the release body; next is the advice by what is published when it
// runs.
func notesStep(next string) flow.Step[releaseState] {
	return flow.Step[releaseState]{Name: StepNotes, Next: next, Run: func(ctx context.Context, s *releaseState) error {
		body, err := ReleaseBody(ctx, s.cfg, s.plan)
		if err != nil {
			return err
		}
		s.body = body
		s.rel = GitHubRelease{
			Tag: s.plan.Tag, Title: body.Title, Prerelease: s.plan.Prerelease, MakeLatest: s.plan.MakeLatest,
			Outcome: "planned", Body: body.Text,
		}
		return nil
	}}
}

var publishReleaseStep = flow.Step[releaseState]{Name: StepGHRelease, Writes: true, Next: nextPublishRelease, Run: func(ctx context.Context, s *releaseState) error {
	var err error
	s.rel, err = PublishRelease(ctx, s.cfg, s.plan, s.body)
	return err
}}

// imageSteps are publish's image steps over the release's state, only those named when
// names are given. On a dry run, push-by-digest computes the digests a push would give and
// scan-digests scans the built containers.
func imageSteps(names ...string) []flow.Step[releaseState] {
	all := publish.Steps(imageAdvice, func(s *releaseState) *publish.ImageState { return &s.images })
	for i := range all {
		switch all[i].Name {
		case StepPush:
			all[i].DryRun = builtDigests
		case StepScan:
			all[i].DryRun = scanBuilt
		}
	}
	if len(names) == 0 {
		return all
	}
	return slices.DeleteFunc(all, func(st flow.Step[releaseState]) bool { return !slices.Contains(names, st.Name) })
}

// flowName names a release in logs and errors: "release v0.11.0". Without a function's
// name it is empty, and flow.Run refuses it.
func flowName(fn, tag string) string {
	if fn == "" {
		return ""
	}
	return fn + " " + tag
}

// runner runs the steps of the release of tag, logging each to the configured log.
func (c Config) runner(tag string, dryRun bool) flow.Runner {
	r := flow.Runner{Flow: flowName(c.Flow, tag), DryRun: dryRun}
	r.Log = c.Log
	return r
}

// run runs steps on s and returns the report of what they did, as far as they got.
func (s *releaseState) run(ctx context.Context, steps []flow.Step[releaseState], dryRun bool) (Report, error) {
	_, err := flow.Run(ctx, s.cfg.runner(s.tag, dryRun), steps, s)
	return s.reportAfter(err, dryRun), err
}

// reportAfter is the report of a run that ended with err.
func (s *releaseState) reportAfter(err error, dryRun bool) Report {
	rep := s.report()
	rep.DryRun, rep.Failed = dryRun, flow.FailedStep(err)
	return rep
}

// report is what the steps did, as far as they got: each image under the repository it is
// published to, its digest, scan, evidence and tags, and the GitHub release.
func (s *releaseState) report() Report {
	rep := Report{Repo: s.cfg.Repo, Tag: s.tag, Version: s.plan.Version, Commit: s.plan.Commit, Release: s.rel}
	if s.images.Built == nil {
		return rep
	}
	rep.Images = plannedImages(s.cfg, s.plan, s.images.Built)
	for name, built := range s.builtDigests {
		if img := rep.imageNamed(name); img != nil {
			img.setDigest(built)
		}
	}
	for _, p := range s.images.Pushed {
		if img := rep.imageNamed(p.Name); img != nil {
			img.Repository, img.Tags = p.Repository, nil
			img.setDigest(p)
		}
	}
	rep.addScans(s.scanRecords())
	rep.addEvidence(s.images.Evidence)
	rep.addTags(s.cfg.Images.Target.Tags.Latest, s.images.Applied)
	return rep
}

func (s *releaseState) scanRecords() []ScanRecord {
	if s.images.Scans == nil {
		return s.handoffScans
	}
	return scanRecords(s.images.Scans, s.images.Pushed)
}
