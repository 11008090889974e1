package modelrelease

import (
	"context"
	"fmt"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/internal/reponame"
	"dagger/shipyard/models"
	"dagger/shipyard/models/modelenv"
)

// modelReleaseState is what model-release's steps share: the gathered facts, what was
// decided on them and what was written.
type modelReleaseState struct {
	env    modelenv.Env
	gh     github.API
	source *dagger.Directory
	o      ReleaseOptions
	res    *ReleaseResult

	r         remote
	pyproject []byte
	branch    string // release-<major>.<minor> of the upstream
	in        Inputs
	gen       *dagger.Container // the generated repository, checked
	tree      modelenv.Tree
	pkgDir    string
	generated modelenv.Digests

	st     Facts
	b      *versioned
	d      draft
	commit string
}

// prepareSteps run once: they read the repository's facts, check the token and generate.
func prepareSteps() []flow.Step[modelReleaseState] {
	return []flow.Step[modelReleaseState]{
		{Name: "select upstream", Run: on((*modelReleaseState).selectUpstream),
			Next: "pass --repo owner/name and --upstream X.Y.Z, one of the model_version matrix the template renders into the release workflow"},
		{Name: "check token", Run: on((*modelReleaseState).checkToken),
			Next: "rerun once the token has that access; nothing was built or written"},
		{Name: "read main", Run: on((*modelReleaseState).readMain),
			Next: "check that the repository has its main branch, then rerun"},
		{Name: "generate and check", Run: on((*modelReleaseState).generateAndCheck),
			Next: "fix the failed check in the Cloudcoil template or the integration's source; nothing was written"},
		{Name: "fingerprint", Run: on((*modelReleaseState).fingerprint),
			Next: "check the generated repository's package directory; nothing was written"},
	}
}

// releaseSteps are one attempt at the release: plan on fresh state, build, then write.
// They run again when another run moved the release branch first.
func releaseSteps() []flow.Step[modelReleaseState] {
	return []flow.Step[modelReleaseState]{
		{Name: "plan", Run: on((*modelReleaseState).plan),
			Next: "rerun; a record that cannot be read names its file and how to fix it"},
		{Name: "build", Run: on((*modelReleaseState).build),
			Next: "fix what the artifact or dependency check reports, or rerun from the new main; nothing was written"},
		{Name: "push", Writes: true, Run: on((*modelReleaseState).push),
			Next: "rerun once the other runs of this repository finish; the branch only moves forward"},
		{Name: "draft", Writes: true, Run: on((*modelReleaseState).draft),
			Next: "rerun: the draft converges on the release branch's head"},
		{Name: "publish", Writes: true, Run: on((*modelReleaseState).publish),
			Next: "rerun with --publish once main stops moving, or publish the draft by hand after review"},
	}
}

// on adapts a method of run to a step's run function.
func on(m func(*modelReleaseState, context.Context) error) func(context.Context, *modelReleaseState) error {
	return func(ctx context.Context, s *modelReleaseState) error { return m(s, ctx) }
}

func (s *modelReleaseState) selectUpstream(ctx context.Context) error {
	n, err := reponame.Parse(s.o.Repo)
	if err != nil {
		return fmt.Errorf("--repo: %w: want owner/name, e.g. cloudcoil/models-kubernetes", err)
	}
	s.r = remote{gh: s.gh, owner: n.Owner, repo: n.Repo, main: s.o.MainBranch, pypi: s.env.PyPIClient(), pypiURL: s.o.PyPIURL}
	data, err := s.source.File(modelenv.PyprojectPath).Contents(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", modelenv.PyprojectPath, err)
	}
	lines, err := modelenv.ReadLineConfig(ctx, s.source)
	if err != nil {
		return err
	}
	upstream, branch, err := resolveUpstream(lines, s.o.Upstream)
	if err != nil {
		return err
	}
	selected, err := modelenv.SelectUpstream([]byte(data), lines, upstream)
	if err != nil {
		return err
	}
	project, err := modelenv.ReadProject(selected)
	if err != nil {
		return err
	}
	s.pyproject, s.branch, s.r.project = selected, branch, project.Name
	s.in = Inputs{Package: project.Name, Upstream: upstream,
		DryRun: s.o.DryRun, Publish: s.o.Publish, AutoPublish: s.o.AutoPublish}
	return nil
}

// resolveUpstream is the upstream a run releases (given, else the newest configured)
// and its release branch.
func resolveUpstream(lines modelenv.LineConfig, given string) (upstream, branch string, err error) {
	upstream = given
	if upstream == "" {
		if upstream, err = modelenv.NewestUpstream(lines); err != nil {
			return "", "", fmt.Errorf("no --upstream given: %w", err)
		}
	}
	branch, err = models.ReleaseBranch(upstream)
	if err != nil || strings.Count(upstream, ".") != 2 {
		return "", "", fmt.Errorf("--upstream %q: want the upstream version X.Y.Z", upstream)
	}
	return upstream, branch, nil
}

// checkToken reads what the token may do on the model repository and, for a run that
// writes, whether it may write there: from its scopes when it is a classic token, else by
// asking GitHub for something that needs contents: write and saves nothing (see
// github.ProbeContentsWrite).
func (s *modelReleaseState) checkToken(ctx context.Context) error {
	perms, found, err := s.gh.RepoPermissions(ctx, s.r.owner, s.r.repo)
	if err != nil {
		return err
	}
	var probe github.WriteProbe
	if found && !s.o.DryRun {
		if probe, err = github.ProbeContentsWrite(ctx, s.gh, s.r.owner, s.r.repo, perms); err != nil {
			return err
		}
	}
	return CheckAccess(s.o.Repo, perms, found, s.o.DryRun, probe)
}

func (s *modelReleaseState) readMain(ctx context.Context) error {
	s.in.Start = s.o.Commit
	if s.in.Start != "" {
		return nil
	}
	head, ok, err := s.gh.BranchHead(ctx, s.r.owner, s.r.repo, s.o.MainBranch)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s has no branch %s", s.o.Repo, s.o.MainBranch)
	}
	s.in.Start = head
	return nil
}

func (s *modelReleaseState) generateAndCheck(ctx context.Context) error {
	checkout := s.source.Filter(dagger.DirectoryFilterOpts{Exclude: modelenv.NotRepository()}).WithNewFile(modelenv.PyprojectPath, string(s.pyproject))
	gen, err := s.env.Generate(checkout, "", nil)
	if err != nil {
		return err
	}
	s.gen = gen
	s.res.Checks.Jobs = modelenv.RunChecks(ctx, gen, "")
	d, err := checksOutcome(s.res.Checks)
	if err != nil {
		s.res.Plan.Decision = d
	}
	return err
}

// checksOutcome decides on the checks of the generation: no error when they passed,
// else the stop decision and the error that says nothing was written.
func checksOutcome(checks jobs.Summary) (models.PublishDecision, error) {
	if checks.Passed() {
		return models.PublishDecision{}, nil
	}
	d := models.Publication(models.PublishInputs{})
	return d, fmt.Errorf("%s; nothing was pushed or released: %w", d.Reason, checks.Err())
}

func (s *modelReleaseState) fingerprint(ctx context.Context) error {
	tree, err := modelenv.ReadTree(ctx, s.gen.Directory("/repo"), modelenv.DefaultTreeLimits())
	if err != nil {
		return fmt.Errorf("reading the generated repository: %w", err)
	}
	pkgDir, err := modelenv.FindPackageDir(tree)
	if err != nil {
		return err
	}
	s.tree, s.pkgDir = tree, pkgDir
	s.generated, err = tree.Fingerprints(pkgDir)
	return err
}

// plan gathers fresh state and decides on the generation's fingerprint (steps 3–4).
func (s *modelReleaseState) plan(ctx context.Context) error {
	st, err := s.r.gather(ctx, s.in.Upstream, s.branch)
	if err != nil {
		return err
	}
	s.st = st
	s.in.Digests, s.in.ChecksPassed = s.generated, true
	plan, err := Decide(s.in, st)
	if err != nil {
		return err
	}
	s.res.Plan = plan
	if plan.Decision.Action == models.Nothing {
		return flow.Done
	}
	return nil
}

// build sets the version, builds and checks (step 5), again only when the version
// changed since the last attempt, and decides again on what was built.
func (s *modelReleaseState) build(ctx context.Context) error {
	version := s.res.Plan.Version
	if s.b == nil || s.b.version != version {
		b, err := buildVersion(ctx, s.env, s.gen, s.tree, s.pkgDir, version)
		if err != nil {
			return err
		}
		s.b = b
	}
	s.res.Artifacts = s.b.report
	s.in.Digests, s.in.ChecksPassed = s.b.digests, len(s.b.report.Problems) == 0
	plan, err := Decide(s.in, s.st)
	if err != nil {
		return err
	}
	s.res.Plan = plan
	next, err := afterBuild(plan, s.b.report, s.st, s.in.Start)
	if err == nil && next == finish {
		return flow.Done
	}
	return err
}

// outcome is what an attempt does once the build is decided on.
type outcome int

const (
	act    outcome = iota // write: push, draft and maybe publish
	finish                // write nothing more: nothing to release, a dry run, or a stop
)

// afterBuild decides on the plan that knows the build: a stop is an error saying why and
// that nothing was written; nothing to release and a dry run finish; the rest acts.
func afterBuild(plan Allocation, report modelenv.ArtifactReport, st Facts, start string) (outcome, error) {
	switch plan.Decision.Action {
	case models.Stop:
		if err := report.Err(); err != nil {
			return finish, fmt.Errorf("%s; nothing was pushed or released: %w", plan.Decision.Reason, err)
		}
		return finish, fmt.Errorf("%s (main is at %.12s, the run generated %.12s); nothing was pushed or released", plan.Decision.Reason, st.Main, start)
	case models.Nothing, models.DryRun:
		return finish, nil
	}
	return act, nil
}

func (s *modelReleaseState) push(ctx context.Context) error {
	plan := s.res.Plan
	commit, err := s.r.push(ctx, plan, s.b.tree, s.in.Start)
	if err != nil {
		return err
	}
	s.commit = commit
	if plan.Push {
		s.res.Notes = append(s.res.Notes, fmt.Sprintf("pushed %.12s to %s", commit, plan.Branch))
	}
	return nil
}

func (s *modelReleaseState) draft(ctx context.Context) error {
	d, err := s.r.reconcileDraft(ctx, s.res.Plan, s.commit, s.in.Package, s.o.DraftRounds)
	s.d = d
	s.res.Draft, s.res.Commit, s.res.Notes = d.id, d.commit, append(s.res.Notes, d.steps...)
	if err != nil {
		return err
	}
	if d.published {
		s.res.Published = true
		return flow.Done
	}
	return nil
}

func (s *modelReleaseState) publish(ctx context.Context) error {
	plan := s.res.Plan
	if plan.Decision.Action != models.Publish {
		return nil
	}
	published, err := s.r.publish(ctx, plan, s.d, s.in.Start, s.in)
	s.res.Published = published
	if published {
		s.res.Notes = append(s.res.Notes, fmt.Sprintf("published %s at %.12s", plan.Version, s.d.commit))
	}
	return err
}

// CheckAccess says what the token lacks on the model repository for a release run: it
// must see and read the repository, and, unless the run is a dry run, write its contents
// (release branches, drafts and releases). found and p are GitHub's answer to
// GET /repos/{owner}/{repo}, whose permissions are the token's user's role; probe is
// GitHub's answer when asked whether the token itself may write (github.WhyNoContentsWrite).
func CheckAccess(repo string, p github.Permissions, found, dryRun bool, probe github.WriteProbe) error {
	const fix = "give CI_GITHUB_TOKEN (--github-token) access to %s with contents: write (a classic token: the repo scope), and make the secret available to that repository"
	switch {
	case !found:
		return fmt.Errorf("the token cannot see %s (GitHub answers 404): %w; "+fix, repo, modelenv.ErrNoAccess, repo)
	case !p.Known:
		return fmt.Errorf("GitHub reported no permissions on %s, so the token was not sent or not accepted: %w; "+fix, repo, modelenv.ErrNoAccess, repo)
	case !p.Pull:
		return fmt.Errorf("the token cannot read %s: %w; "+fix, repo, modelenv.ErrNoAccess, repo)
	case dryRun:
		return nil
	case !p.Push:
		return fmt.Errorf("the token can read %s but not write it (no push permission), and a release pushes release-<major>.<minor> and writes releases: %w; "+fix, repo, modelenv.ErrNoAccess, repo)
	}
	if why := github.WhyNoContentsWrite(p, probe); why != "" {
		return fmt.Errorf("the token may not write the contents of %s, which a release does (release-<major>.<minor>, drafts, releases): %s: %w; "+fix, repo, why, modelenv.ErrNoAccess, repo)
	}
	return nil
}
