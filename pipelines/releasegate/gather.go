package releasegate

import (
	"context"
	"errors"
	"fmt"
	"sync"

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

// splitRepo checks "owner/name" and splits it.
func splitRepo(repo string) (owner, name string, err error) {
	n, err := reponame.Parse(repo)
	if err != nil {
		return "", "", fmt.Errorf("release-plan: %w: want owner/name, e.g. elixir-cloud-aai/tesk-core", err)
	}
	return n.Owner, n.Repo, nil
}

// Gather fetches the facts the rules need from GitHub, at the tagged commit. It makes
// few requests (for a repository with 200 releases: the tag ref and tag object, the heads
// of main and dev with a compare each, two files, one page of workflow runs and two pages
// of releases) and runs the
// independent ones concurrently. Errors other than "not found" fail it: the rules never
// decide on missing data.
func Gather(ctx context.Context, gh *github.Client, repo, tag string, opts Config) (Facts, error) {
	opts = opts.withDefaults()
	owner, name, err := splitRepo(repo)
	if err != nil {
		return Facts{}, err
	}
	g := &gatherer{gh: gh, owner: owner, name: name, f: Facts{
		Repo: repo, Tag: tag, Workflow: opts.Workflow, ImageOrg: opts.ImageOrg, CIChecked: opts.CIChecked,
		Citation: FileFacts{Path: CitationFile},
		Notes:    FileFacts{Path: NotesPath(tag)},
	}}
	// The releases do not depend on the tag: list them while the tag resolves.
	g.wg.Go(func() { g.releases(ctx) })
	if validTagName(tag) {
		g.tagRef(ctx, tag)
	}
	if sha := g.f.TagRef.CommitSHA; sha != "" {
		g.branches(ctx, sha)
		for _, file := range []*FileFacts{&g.f.Citation, &g.f.Notes} {
			g.wg.Go(func() { g.file(ctx, file, sha) })
		}
		if !opts.CIChecked {
			g.wg.Go(func() { g.ci(ctx, opts.Workflow, sha) })
		}
	}
	g.wg.Wait()
	if len(g.errs) > 0 {
		return Facts{}, fmt.Errorf("release-plan: reading %s at %s: %w", repo, tag, errors.Join(g.errs...))
	}
	return g.f, nil
}

// gatherer fills Facts from concurrent requests, each writing its own fields, and
// collects every error.
type gatherer struct {
	gh          *github.Client
	owner, name string
	f           Facts
	wg          sync.WaitGroup
	mu          sync.Mutex
	errs        []error
}

func (g *gatherer) fail(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.errs = append(g.errs, err)
}

func (g *gatherer) releases(ctx context.Context) {
	rels, err := g.gh.Releases(ctx, g.owner, g.name)
	if err != nil {
		g.fail(err)
		return
	}
	for _, r := range rels {
		g.f.Releases = append(g.f.Releases, ReleaseRef{Tag: r.TagName, Draft: r.Draft, Prerelease: r.Prerelease, URL: r.URL})
	}
}

func (g *gatherer) tagRef(ctx context.Context, tag string) {
	t, found, err := g.gh.TagRef(ctx, g.owner, g.name, tag)
	switch {
	case err != nil:
		g.fail(err)
	case found:
		g.f.TagRef = TagFacts{
			Found: true, Annotated: t.Kind == github.TagAnnotated, TargetType: t.TargetType,
			CommitSHA: t.CommitSHA, Verified: t.Verification.Verified, Reason: t.Verification.Reason,
		}
	}
}

// branches finds whether sha is on main and on dev, by the branches' commits, never their
// names: a tag named main or dev would shadow the branch in a compare (git resolves tags
// first).
func (g *gatherer) branches(ctx context.Context, sha string) {
	for branch, on := range map[string]*bool{MainBranch: &g.f.OnMain, DevBranch: &g.f.OnDev} {
		g.wg.Go(func() {
			head, found, err := g.gh.BranchHead(ctx, g.owner, g.name, branch)
			if err != nil || !found {
				if err != nil {
					g.fail(err)
				}
				return // no such branch: the commit is not on it
			}
			ok, err := g.gh.IsAncestor(ctx, g.owner, g.name, sha, head)
			if err != nil {
				g.fail(err)
				return
			}
			*on = ok
		})
	}
}

func (g *gatherer) file(ctx context.Context, file *FileFacts, sha string) {
	content, found, err := g.gh.FileAt(ctx, g.owner, g.name, file.Path, sha)
	if err != nil {
		g.fail(err)
		return
	}
	file.Found, file.Content = found, content
}

func (g *gatherer) ci(ctx context.Context, workflow, sha string) {
	run, found, err := g.gh.LatestWorkflowRun(ctx, g.owner, g.name, workflow, CIEvent, DevBranch, sha)
	switch {
	case errors.Is(err, github.ErrNotFound):
		return // WorkflowFound stays false: a rule, not an outage.
	case err != nil:
		g.fail(err)
		return
	}
	g.f.CI = CIFacts{
		WorkflowFound: true, Found: found, Status: run.Status, Conclusion: run.Conclusion,
		Attempt: run.Attempt, URL: run.URL,
	}
}

// Check checks every release rule for tag in repo ("owner/name") through the
// GitHub API and returns the plan, or a *GateError listing every violated rule (with
// the rules it could not check). Other errors mean GitHub could not be read; they fail
// the plan too, as any doubt must.
func Check(ctx context.Context, gh *github.Client, repo, tag string, opts Config) (Plan, error) {
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
