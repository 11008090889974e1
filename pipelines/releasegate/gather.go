package releasegate

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/reponame"
)

// Config adjusts release-plan to a repository.
type Config struct {
	// Workflow is the CI workflow's file name (default ci.yml).
	Workflow string
	// ImageOrg is the Docker Hub organisation of the images (default elixircloud).
	ImageOrg string
	// CIChecked says an earlier job of the same release passed rule 6 (CI passed), so
	// the workflow runs are not read and the rule is not applied again: the job that
	// creates the GitHub release holds a token with contents: write only, which cannot
	// read workflow runs.
	CIChecked bool
	// Commit rehearses the release before its tag exists: the full SHA of the commit the
	// tag will name. Every rule that does not need the tag itself is checked there.
	Commit string
}

func (o Config) withDefaults() Config {
	if o.Workflow == "" {
		o.Workflow = DefaultWorkflow
	}
	if o.ImageOrg == "" {
		o.ImageOrg = DefaultImageOrg
	}
	return o
}

// fullSHA is a full commit SHA, as a rehearsal names its commit.
var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// splitRepo checks "owner/name" and splits it.
func splitRepo(repo string) (owner, name string, err error) {
	n, err := reponame.Parse(repo)
	if err != nil {
		return "", "", fmt.Errorf("%w: want owner/name, e.g. elixir-cloud-aai/tesk-core", err)
	}
	return n.Owner, n.Repo, nil
}

// Gather fetches the facts the rules need from GitHub, at the tagged commit. It makes
// few requests (for a repository with 200 releases: the tag ref and tag object, the heads
// of main and dev with a compare each, two files, one page of workflow runs, the run's
// jobs only when the run did not succeed as a whole, and two pages of releases) and runs the
// independent ones concurrently. Errors other than "not found" fail it: the rules never
// decide on missing data.
func Gather(ctx context.Context, gh github.API, repo, tag string, opts Config) (Facts, error) {
	opts = opts.withDefaults()
	owner, name, err := splitRepo(repo)
	if err != nil {
		return Facts{}, err
	}
	if opts.Commit != "" && !fullSHA.MatchString(opts.Commit) {
		return Facts{}, fmt.Errorf("--commit %q is not a full commit SHA: give the 40 hex digits of the commit to tag, e.g. $(git rev-parse main)", opts.Commit)
	}
	g := &gatherer{gh: gh, owner: owner, name: name, reads: fanout.New(ctx, 0), f: Facts{
		Repo: repo, Tag: tag, Workflow: opts.Workflow, ImageOrg: opts.ImageOrg, CIChecked: opts.CIChecked,
		Citation: FileFacts{Path: CitationFile},
		Notes:    FileFacts{Path: NotesPath(tag)}, Rehearsal: opts.Commit,
	}}
	// The releases do not depend on the tag: list them while the tag resolves.
	g.reads.Go(g.releases)
	var tagErr error
	// A tag git refuses cannot exist, and is not sent to the API, where ".." or slashes
	// could address another ref; the rules report it.
	if github.CheckTag(tag) == nil {
		tagErr = g.tagRef(ctx, tag)
	}
	if sha := g.f.commit(); sha != "" {
		g.branches(sha)
		for _, file := range []*FileFacts{&g.f.Citation, &g.f.Notes} {
			g.reads.Go(func(ctx context.Context) error { return g.file(ctx, file, sha) })
		}
		if !opts.CIChecked {
			g.reads.Go(func(ctx context.Context) error { return g.ci(ctx, opts.Workflow, sha) })
		}
	}
	if err := errors.Join(tagErr, g.reads.Wait()); err != nil {
		return Facts{}, fmt.Errorf("reading %s at %s: %w", repo, tag, err)
	}
	return g.f, nil
}

// gatherer fills Facts from concurrent reads, each writing its own fields.
type gatherer struct {
	gh          github.API
	owner, name string
	f           Facts
	reads       *fanout.Group
}

func (g *gatherer) releases(ctx context.Context) error {
	rels, err := g.gh.Releases(ctx, g.owner, g.name)
	if err != nil {
		return err
	}
	for _, r := range rels {
		g.f.Releases = append(g.f.Releases, ReleaseRef{Tag: r.TagName, Draft: r.Draft, Prerelease: r.Prerelease, URL: r.URL})
	}
	return nil
}

func (g *gatherer) tagRef(ctx context.Context, tag string) error {
	t, found, err := g.gh.TagRef(ctx, g.owner, g.name, tag)
	switch {
	case err != nil:
		return err
	case found:
		g.f.TagRef = TagFacts{
			Found: true, Annotated: t.Kind == github.TagAnnotated, TargetType: t.TargetType,
			CommitSHA: t.CommitSHA, Verified: t.Verification.Verified, Reason: t.Verification.Reason,
		}
	}
	return nil
}

// branches finds whether sha is on main and on dev, by the branches' commits, never their
// names: a tag named main or dev would shadow the branch in a compare (git resolves tags
// first).
func (g *gatherer) branches(sha string) {
	for _, b := range []struct {
		branch string
		on     *bool
	}{{MainBranch, &g.f.OnMain}, {DevBranch, &g.f.OnDev}} {
		g.reads.Go(func(ctx context.Context) error {
			head, found, err := g.gh.BranchHead(ctx, g.owner, g.name, b.branch)
			if err != nil || !found {
				return err // not found: no such branch, so the commit is not on it
			}
			ok, err := g.gh.IsAncestor(ctx, g.owner, g.name, sha, head)
			if err != nil {
				return err
			}
			*b.on = ok
			return nil
		})
	}
}

func (g *gatherer) file(ctx context.Context, file *FileFacts, sha string) error {
	content, found, err := g.gh.FileAt(ctx, g.owner, g.name, file.Path, sha)
	if err != nil {
		return err
	}
	file.Found, file.Content = found, content
	return nil
}

func (g *gatherer) ci(ctx context.Context, workflow, sha string) error {
	run, found, err := g.gh.LatestWorkflowRun(ctx, g.owner, g.name, workflow, CIEvent, DevBranch, sha)
	switch {
	case errors.Is(err, github.ErrNotFound):
		return nil // WorkflowFound stays false: a rule, not an outage.
	case err != nil:
		return err
	}
	g.f.CI = CIFacts{
		WorkflowFound: true, Found: found, Status: run.Status, Conclusion: run.Conclusion,
		Attempt: run.Attempt, URL: run.URL,
	}
	if !found || (run.Status == "completed" && run.Conclusion == "success") {
		return nil
	}
	// The run as a whole did not succeed: its gate job decides (rule 6), so read its jobs.
	jobs, err := g.gh.WorkflowRunJobs(ctx, g.owner, g.name, run.ID)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		g.f.CI.Jobs = append(g.f.CI.Jobs, CIJob{Name: j.Name, Status: j.Status, Conclusion: j.Conclusion, URL: j.URL})
	}
	return nil
}

// Check checks every release rule for tag in repo ("owner/name") through the
// GitHub API and returns the plan, or a *GateError listing every violated rule (with
// the rules it could not check). Other errors mean GitHub could not be read; they fail
// the plan too, as any doubt must.
func Check(ctx context.Context, gh github.API, repo, tag string, opts Config) (Plan, error) {
	facts, err := Gather(ctx, gh, repo, tag, opts)
	if err != nil {
		return Plan{}, err
	}
	plan, violations := Evaluate(facts)
	if len(violations) > 0 {
		return Plan{}, &GateError{Repo: repo, Tag: tag, Violations: violations}
	}
	return plan, nil
}
