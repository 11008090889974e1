package modelrelease

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/upstreams"
)

// ReleaseOptions adjust one release run of a model repository ("Update Versions"); what
// sets the flow up (clients, the log) is the Env.
type ReleaseOptions struct {
	// Flow is the function the release is a call of (model-release), which names the
	// flow in logs and in every *flow.Error it returns.
	Flow string
	// Repo is the model repository, owner/name (e.g. cloudcoil/models-kubernetes).
	Repo string
	// Upstream is the upstream version to release, one of the repository's release lines
	// (the model_version matrix the template renders).
	Upstream string
	// Commit is the commit of main the source is a checkout of; empty means main's head
	// when the run starts. Publication stops if main is elsewhere when the run writes.
	Commit string
	// MainBranch is the branch generation follows (default "main").
	MainBranch string
	// DryRun builds and validates without pushing or releasing: the default of manual
	// runs. Publish asks to publish this run's draft; AutoPublish is the repository
	// variable AUTO_PUBLISH_MODELS=true. See models.Publication.
	DryRun, Publish, AutoPublish bool
	// PyPIURL is PyPI's JSON API base (default upstreams.PyPIURL).
	PyPIURL string
	// MaxAttempts bounds how often a run plans again after another run moved the release
	// branch first (default 3).
	MaxAttempts int
	// DraftRounds bounds how often the draft is rewritten to follow the branch (default 4).
	DraftRounds int
}

func (o ReleaseOptions) withDefaults() ReleaseOptions {
	if o.MainBranch == "" {
		o.MainBranch = "main"
	}
	if o.PyPIURL == "" {
		o.PyPIURL = upstreams.PyPIURL
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 3
	}
	if o.DraftRounds <= 0 {
		o.DraftRounds = 4
	}
	return o
}

// ReleaseResult is what a run did.
type ReleaseResult struct {
	Plan      Allocation
	Checks    jobs.Summary
	Artifacts modelenv.ArtifactReport
	// Commit is the release commit the draft pins ("" when nothing was written).
	Commit string
	// Draft is the id of the draft (or, once published, the release).
	Draft     int64
	Published bool
	// Ran names the steps that ran, in order (the release steps again after a lost
	// branch race); a failure is a *flow.Error naming its step.
	Ran []string
	// Notes say what the run wrote, and why it planned again, in order, for the log.
	Notes []string
}

// Text renders the result: the plan, the checks, and what was written.
func (r ReleaseResult) Text() string {
	var b strings.Builder
	b.WriteString(r.Plan.Text())
	if len(r.Checks.Jobs) > 0 {
		b.WriteString("\n")
		b.WriteString(r.Checks.Table())
	}
	if r.Artifacts.WheelName != "" {
		b.WriteString("\n")
		b.WriteString(r.Artifacts.Text())
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
		for _, s := range r.Notes {
			b.WriteString("- " + s + "\n")
		}
	}
	return b.String()
}

// errLostRace marks a write another run made impossible by moving the release branch
// first; the run plans again.
var errLostRace = errors.New("another run moved the release branch first")

// Release runs a model repository's release (steps 1–6 of "Validation and release"):
//
//  1. select the upstream in pyproject.toml and refresh the Cloudcoil lock entry;
//  2. generate, then lint, type check and test (concurrently);
//  3. fingerprint what ships and compare it with the last published release's record:
//     equal means nothing to release;
//  4. allocate <upstream>.<packaging> from releases, tags and PyPI, reusing a draft;
//  5. set the version, refresh the lockfile, build, check the artifacts and the Cloudcoil
//     dependency;
//  6. push a fast-forward commit (never forced) with the record to
//     release-<major>.<minor>, create or update the draft pinned to exactly that commit,
//     and publish it when models.Publication says so and main has not moved.
//
// Before any of it, the token must be able to read and write the repository (read only,
// on a dry run). The run is two declared flows (prepareSteps once, then releaseSteps),
// fetch → decide → act: the reads gather Facts, the pure Decide and afterBuild decide,
// and the writing steps act. When another run moves the release branch first, the
// release steps run again on fresh state, at most MaxAttempts times. A dry run stops
// before the first writing step. Failed checks stop before any write. The GitHub
// client holds the token in memory; no container of the graph receives it.
func Release(ctx context.Context, e modelenv.Env, gh github.API, source *dagger.Directory, o ReleaseOptions) (ReleaseResult, error) {
	o = o.withDefaults()
	var res ReleaseResult
	s := &modelReleaseState{env: e, gh: gh, source: source, o: o, res: &res}
	runner := flow.Runner{Flow: o.Flow, DryRun: o.DryRun, Log: e.Log}
	ran, err := flow.Run(ctx, runner, prepareSteps(), s)
	res.Ran = append(res.Ran, ran...)
	if err != nil {
		return res, err
	}
	runner.Retry = flow.Retry{On: errLostRace, Attempts: o.MaxAttempts, Again: func(error) {
		res.Notes = append(res.Notes, fmt.Sprintf("%s moved while this run pushed; planning again", res.Plan.Branch))
	}}
	ran, err = flow.Run(ctx, runner, releaseSteps(), s)
	res.Ran = append(res.Ran, ran...)
	return res, err
}

// versioned is a generated repository with its version set, built and checked.
type versioned struct {
	version string
	tree    modelenv.Tree // the files of the release commit, without the record
	digests modelenv.Digests
	report  modelenv.ArtifactReport
}

// buildVersion sets the version (in Go, so the file is exactly the template's with one
// value changed), refreshes uv.lock's own entry, builds, and runs the artifact and
// Cloudcoil dependency checks against the tree that will be committed.
func buildVersion(ctx context.Context, e modelenv.Env, gen *dagger.Container, tree modelenv.Tree, pkgDir, version string) (*versioned, error) {
	pyproject, err := modelenv.SetVersion(tree[modelenv.PyprojectPath], version)
	if err != nil {
		return nil, err
	}
	ctr := gen.WithNewFile("/repo/"+modelenv.PyprojectPath, string(pyproject)).WithExec([]string{"uv", "lock"})
	lock, err := ctr.File("/repo/uv.lock").Contents(ctx)
	if err != nil {
		return nil, fmt.Errorf("uv.lock after setting %s: %w", version, err)
	}
	final := make(modelenv.Tree, len(tree))
	for p, data := range tree {
		final[p] = data
	}
	final[modelenv.PyprojectPath], final["uv.lock"] = pyproject, []byte(lock)
	delete(final, RecordPath)
	built, err := e.Build(ctx, ctr)
	if err != nil {
		return nil, err
	}
	project, err := modelenv.ReadProject(pyproject)
	if err != nil {
		return nil, err
	}
	problems := append(modelenv.CheckBuilt(final, pkgDir, built), CheckCloudcoilDependency(pyproject, []byte(lock))...)
	digests, err := final.Fingerprints(pkgDir)
	if err != nil {
		return nil, err
	}
	return &versioned{
		version: version, tree: final, digests: digests,
		report: modelenv.ArtifactReport{Project: project, PackageDir: pkgDir, WheelName: built.WheelName, SdistName: built.SdistName, Problems: problems},
	}, nil
}
