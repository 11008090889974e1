package modelrelease

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"dagger.io/dagger"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/internal/reponame"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/models"
)

// ReleaseOptions configure a model repository's release run ("Update Versions").
type ReleaseOptions struct {
	// Repo is the model repository, owner/name (e.g. cloudcoil/models-kubernetes).
	Repo string
	// Upstream is the upstream version to release, one of the repository's configured
	// upstream-versions.
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
	// PyPIURL is PyPI's JSON API base (default DefaultPyPIURL); PyPI is the HTTP client
	// for it (default: one with a timeout).
	PyPIURL string
	PyPI    *http.Client
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
		o.PyPIURL = DefaultPyPIURL
	}
	if o.PyPI == nil {
		o.PyPI = &http.Client{Timeout: time.Minute}
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
	Plan      Plan
	Checks    jobs.Summary
	Artifacts ArtifactReport
	// Commit is the release commit the draft pins ("" when nothing was written).
	Commit string
	// Draft is the id of the draft (or, once published, the release).
	Draft     int64
	Published bool
	// Steps lists what the run wrote or decided, in order, for the log.
	Steps []string
}

// Text renders the result: the plan, the checks, and the steps.
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
	if len(r.Steps) > 0 {
		b.WriteString("\n")
		for _, s := range r.Steps {
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
// A dry run stops after step 5 and writes nothing. Failed checks stop before any write.
// The GitHub client holds the token in memory; no container of the graph receives it.
func (e Env) Release(ctx context.Context, gh *github.Client, source *dagger.Directory, o ReleaseOptions) (ReleaseResult, error) {
	e.Trust = trust.Release // what it builds is pushed and released
	o = o.withDefaults()
	var res ReleaseResult
	n, err := reponame.Parse(o.Repo)
	if err != nil {
		return res, fmt.Errorf("model-release: --repo: %w: want owner/name, e.g. cloudcoil/models-kubernetes", err)
	}
	owner, repo := n.Owner, n.Repo
	pyproject, err := source.File(pyprojectPath).Contents(ctx)
	if err != nil {
		return res, fmt.Errorf("model-release: %s: %w", pyprojectPath, err)
	}
	if o.Upstream == "" {
		if o.Upstream, err = NewestUpstream([]byte(pyproject)); err != nil {
			return res, fmt.Errorf("model-release: no --upstream given: %w", err)
		}
	}
	branch, err := models.ReleaseBranch(o.Upstream)
	if err != nil || strings.Count(o.Upstream, ".") != 2 {
		return res, fmt.Errorf("model-release: --upstream %q: want the upstream version X.Y.Z", o.Upstream)
	}
	r := remote{gh: gh, owner: owner, repo: repo, main: o.MainBranch, pypi: o.PyPI, pypiURL: o.PyPIURL}
	start := o.Commit
	if start == "" {
		head, ok, err := gh.BranchHead(ctx, owner, repo, o.MainBranch)
		if err != nil {
			return res, fmt.Errorf("model-release: %w", err)
		}
		if !ok {
			return res, fmt.Errorf("model-release: %s has no branch %s", o.Repo, o.MainBranch)
		}
		start = head
	}

	// 1–2: select, lock, generate, check.
	selected, err := SelectUpstream([]byte(pyproject), o.Upstream)
	if err != nil {
		return res, fmt.Errorf("model-release: %w", err)
	}
	project, err := ReadProject(selected)
	if err != nil {
		return res, fmt.Errorf("model-release: %w", err)
	}
	r.project = project.Name
	checkout := source.Filter(dagger.DirectoryFilterOpts{Exclude: notRepository}).WithNewFile(pyprojectPath, string(selected))
	gen, err := e.generate(checkout, "")
	if err != nil {
		return res, fmt.Errorf("model-release: %w", err)
	}
	res.Checks.Jobs = runChecks(ctx, gen, "")
	if !res.Checks.Passed() {
		res.Plan.Decision = models.Publication(models.PublishInputs{})
		return res, fmt.Errorf("model-release: %s; nothing was pushed or released: %w", res.Plan.Decision.Reason, res.Checks.Err())
	}
	tree, err := ReadTree(ctx, gen.Directory("/repo"), DefaultTreeLimits)
	if err != nil {
		return res, fmt.Errorf("model-release: reading the generated repository: %w", err)
	}
	pkgDir, err := FindPackageDir(tree)
	if err != nil {
		return res, fmt.Errorf("model-release: %w", err)
	}
	generated, err := tree.Fingerprints(pkgDir)
	if err != nil {
		return res, fmt.Errorf("model-release: %w", err)
	}

	in := Inputs{
		Package: project.Name, Upstream: o.Upstream, Start: start,
		DryRun: o.DryRun, Publish: o.Publish, AutoPublish: o.AutoPublish,
	}
	var b *versioned
	for attempt := 1; ; attempt++ {
		// 3–4: fingerprint comparison and allocation, on fresh state each attempt.
		st, err := r.gather(ctx, o.Upstream, branch)
		if err != nil {
			return res, fmt.Errorf("model-release: %w", err)
		}
		in.Digests, in.ChecksPassed = generated, true
		plan, err := Decide(in, st)
		if err != nil {
			return res, fmt.Errorf("model-release: %w", err)
		}
		res.Plan = plan
		if plan.Decision.Action == models.Nothing {
			return res, nil
		}
		// 5: version, lock, build, checks; again only when the version changed.
		if b == nil || b.version != plan.Version {
			if b, err = e.buildVersion(ctx, gen, tree, pkgDir, plan.Version); err != nil {
				return res, fmt.Errorf("model-release: %w", err)
			}
		}
		res.Artifacts = b.report
		in.Digests, in.ChecksPassed = b.digests, len(b.report.Problems) == 0
		if plan, err = Decide(in, st); err != nil {
			return res, fmt.Errorf("model-release: %w", err)
		}
		res.Plan = plan
		switch plan.Decision.Action {
		case models.Stop:
			if err := b.report.Err(); err != nil {
				return res, fmt.Errorf("model-release: %s; nothing was pushed or released: %w", plan.Decision.Reason, err)
			}
			return res, fmt.Errorf("model-release: %s (main is at %.12s, the run generated %.12s); nothing was pushed or released", plan.Decision.Reason, st.Main, start)
		case models.Nothing, models.DryRun:
			return res, nil
		}

		// 6: push, draft, publish.
		commit, err := r.push(ctx, plan, b.tree, start)
		if errors.Is(err, errLostRace) && attempt < o.MaxAttempts {
			res.Steps = append(res.Steps, fmt.Sprintf("%s moved while this run pushed; planning again", plan.Branch))
			continue
		}
		if err != nil {
			return res, fmt.Errorf("model-release: %w", err)
		}
		if plan.Push {
			res.Steps = append(res.Steps, fmt.Sprintf("pushed %.12s to %s", commit, plan.Branch))
		}
		d, err := r.reconcileDraft(ctx, plan, commit, project.Name, o.DraftRounds)
		res.Draft, res.Commit, res.Steps = d.id, d.commit, append(res.Steps, d.steps...)
		if err != nil {
			return res, fmt.Errorf("model-release: %w", err)
		}
		if d.published {
			res.Published = true
			return res, nil
		}
		if plan.Decision.Action != models.Publish {
			return res, nil
		}
		published, err := r.publish(ctx, plan, d, start, in)
		res.Published = published
		if published {
			res.Steps = append(res.Steps, fmt.Sprintf("published %s at %.12s", plan.Version, d.commit))
		}
		if err != nil {
			return res, fmt.Errorf("model-release: %w", err)
		}
		return res, nil
	}
}

// versioned is a generated repository with its version set, built and checked.
type versioned struct {
	version string
	tree    Tree // the files of the release commit, without the record
	digests Digests
	report  ArtifactReport
}

// buildVersion sets the version (in Go, so the file is exactly the template's with one
// value changed), refreshes uv.lock's own entry, builds, and runs the artifact and
// Cloudcoil dependency checks against the tree that will be committed.
func (e Env) buildVersion(ctx context.Context, gen *dagger.Container, tree Tree, pkgDir, version string) (*versioned, error) {
	pyproject, err := SetVersion(tree[pyprojectPath], version)
	if err != nil {
		return nil, err
	}
	ctr := gen.WithNewFile("/repo/"+pyprojectPath, string(pyproject)).WithExec([]string{"uv", "lock"})
	lock, err := ctr.File("/repo/uv.lock").Contents(ctx)
	if err != nil {
		return nil, fmt.Errorf("uv.lock after setting %s: %w", version, err)
	}
	final := make(Tree, len(tree))
	for p, data := range tree {
		final[p] = data
	}
	final[pyprojectPath], final["uv.lock"] = pyproject, []byte(lock)
	delete(final, RecordPath)
	built, err := e.build(ctx, ctr)
	if err != nil {
		return nil, err
	}
	project, err := ReadProject(pyproject)
	if err != nil {
		return nil, err
	}
	problems := append(checkBuilt(final, pkgDir, built), CheckCloudcoilDependency(pyproject, []byte(lock))...)
	digests, err := final.Fingerprints(pkgDir)
	if err != nil {
		return nil, err
	}
	return &versioned{
		version: version, tree: final, digests: digests,
		report: ArtifactReport{Project: project, PackageDir: pkgDir, WheelName: built.WheelName, SdistName: built.SdistName, Problems: problems},
	}, nil
}
