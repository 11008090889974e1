package versions

import (
	"context"
	"errors"
	"fmt"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/models/upstreams"
)

// steps are a run, declared: fetch (the base branch, upstream releases, PyPI, the files
// the plan edits), decide (upstreams.Plan and the commits laid out from it, pure), act
// (the branch, then the pull request). --check is the runner's dry run: it stops before
// the first writing step, so not a single request is sent past the plan.
func steps() []flow.Step[modelVersionsState] {
	return []flow.Step[modelVersionsState]{
		{Name: "check options", Run: on((*modelVersionsState).checkOptions),
			Next: "fix the flag the error names; nothing was sent"},
		{Name: "read base", Run: on((*modelVersionsState).readBase),
			Next: "pass --repo the Cloudcoil generator repository and --base a branch of it holding " + upstreams.FilePath + "; nothing was written"},
		{Name: "discover releases", Run: on((*modelVersionsState).discoverReleases),
			Next: "fix the repository " + upstreams.FilePath + " names, or give the token read access to it; nothing was written"},
		{Name: "read PyPI", Run: on((*modelVersionsState).readPyPI),
			Next: "check --pypi-url and cloudcoil.package in " + upstreams.FilePath + ", or re-run when PyPI answers; nothing was written"},
		{Name: "plan", Run: on((*modelVersionsState).decide),
			Next: "fix " + upstreams.FilePath + " as the error says; nothing was written"},
		{Name: "read edited files", Run: on((*modelVersionsState).readEdited),
			Next: "add the file the error names to the base branch, or remove its integration from " + upstreams.FilePath + "; nothing was written"},
		{Name: "lay out commits", Run: on((*modelVersionsState).layOut),
			Next: "fix the file the error names on the base branch; nothing was written"},
		{Name: "sync branch", Writes: true, Run: on((*modelVersionsState).branch),
			Next: "re-run: each run rebuilds " + Branch + " on the base head, and only this flow writes it"},
		{Name: "sync pull request", Writes: true, Run: on((*modelVersionsState).pullRequest),
			Next: "re-run: the pull request converges on the plan, whatever the last run left"},
	}
}

// on adapts a method of run to a step's run function.
func on(m func(*modelVersionsState, context.Context) error) func(context.Context, *modelVersionsState) error {
	return func(ctx context.Context, s *modelVersionsState) error { return m(s, ctx) }
}

func (r *modelVersionsState) checkOptions(context.Context) error {
	if r.gh == nil {
		return errors.New("no GitHub client")
	}
	opts, owner, name, err := r.opts.withDefaults()
	if err != nil {
		return err
	}
	r.opts, r.owner, r.name = opts, owner, name
	r.report.Base = opts.Base
	return nil
}

func (r *modelVersionsState) readBase(ctx context.Context) error {
	src, err := r.readSources(ctx)
	if err != nil {
		return err
	}
	r.src, r.report.BaseSHA = src, src.head
	return nil
}

func (r *modelVersionsState) discoverReleases(ctx context.Context) (err error) {
	r.found, err = r.discover(ctx, r.src.file)
	return err
}

func (r *modelVersionsState) readPyPI(ctx context.Context) error {
	pkg := r.src.file.Cloudcoil.Package
	info, err := upstreams.FetchPyPI(ctx, r.opts.PyPIURL, pkg, r.pypi)
	r.report.Requests.PyPI++
	if err != nil {
		return fmt.Errorf("%s: cloudcoil.package %s: %w (check --pypi-url)", upstreams.FilePath, pkg, err)
	}
	r.pypiV = info
	return nil
}

// decide is the plan, a pure function of what was read.
func (r *modelVersionsState) decide(context.Context) error {
	r.plan = upstreams.Plan(r.src.file, r.found, r.pypiV)
	r.plan.Problems = append(append(r.plan.Problems, r.src.unlisted...), r.discoveryProblems...)
	r.report.Plan = r.plan
	return nil
}

// readEdited reads, at the base head, the files the plan edits and only those.
func (r *modelVersionsState) readEdited(ctx context.Context) (err error) {
	if r.plan, err = r.readCookiecutters(ctx, r.src, r.plan); err != nil {
		return err
	}
	r.report.Plan = r.plan
	return r.readRequirements(ctx, r.src, r.plan)
}

func (r *modelVersionsState) layOut(context.Context) error {
	r.plan = screen(r.src, r.plan)
	specs, problems, err := planCommits(r.src, r.plan)
	if err != nil {
		return err
	}
	r.plan.Problems = append(r.plan.Problems, problems...)
	r.report.Plan = r.plan
	r.specs = specs
	if len(specs) > 0 {
		for _, c := range specs[len(specs)-1].Files {
			r.report.Files = append(r.report.Files, c.Path)
		}
	}
	return nil
}

// branch reads the open pull request, then, when there are commits to propose, makes the
// automation branch hold them. The pull request is read here, when acting rather than
// among the fetch steps, so that --check sends no request past the plan.
func (r *modelVersionsState) branch(ctx context.Context) error {
	pr, open, err := r.gh.OpenPullRequest(ctx, r.owner, r.name, Branch, r.opts.Base)
	if err != nil {
		return err
	}
	r.pr, r.open = pr, open
	if open {
		r.report.PullRequest = pullRef(pr)
	}
	if len(r.specs) == 0 {
		return nil
	}
	r.pushed, err = r.syncBranch(ctx, r.src.head, r.specs)
	return err
}

// pullRequest keeps a pull request open whenever something is pending (applied or for
// review), and closed only when nothing is.
func (r *modelVersionsState) pullRequest(ctx context.Context) error {
	if len(r.specs) > 0 {
		return r.syncPull(ctx, r.pr, r.open, r.pushed, r.plan)
	}
	if !r.open {
		r.report.Action = ActionNone
		return nil
	}
	return r.closePull(ctx, r.pr, r.plan)
}
