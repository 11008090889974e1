package releasegate

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/reponame"
)

// Config adjust release-plan to a repository.
type Config struct {
	// Workflow is the CI workflow's file name (default ci.yml).
	Workflow string
	// ImageOrg is the Docker Hub organisation of the images (default elixircloud).
	ImageOrg string
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
	f := Facts{
		Repo: repo, Tag: tag, Workflow: opts.Workflow, ImageOrg: opts.ImageOrg,
		Citation: FileFacts{Path: CitationFile},
		Notes:    FileFacts{Path: NotesPath(tag)},
	}

	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, err)
	}
	// The releases do not depend on the tag: list them while the tag resolves.
	wg.Go(func() {
		rels, err := gh.Releases(ctx, owner, name)
		if err != nil {
			fail(err)
			return
		}
		for _, r := range rels {
			f.Releases = append(f.Releases, ReleaseRef{Tag: r.TagName, Draft: r.Draft, Prerelease: r.Prerelease, URL: r.URL})
		}
	})

	if validTagName(tag) {
		t, found, err := gh.TagRef(ctx, owner, name, tag)
		switch {
		case err != nil:
			fail(err)
		case found:
			f.TagRef = TagFacts{
				Found: true, Annotated: t.Kind == github.TagAnnotated, TargetType: t.TargetType,
				CommitSHA: t.CommitSHA, Verified: t.Verification.Verified, Reason: t.Verification.Reason,
			}
		}
	}

	if sha := f.TagRef.CommitSHA; sha != "" {
		// By the branches' commits, never their names: a tag named main or dev would
		// shadow the branch in a compare (git resolves tags first).
		for branch, on := range map[string]*bool{MainBranch: &f.OnMain, DevBranch: &f.OnDev} {
			wg.Go(func() {
				head, found, err := gh.BranchHead(ctx, owner, name, branch)
				if err != nil || !found {
					if err != nil {
						fail(err)
					}
					return // no such branch: the commit is not on it
				}
				ok, err := gh.IsAncestor(ctx, owner, name, sha, head)
				if err != nil {
					fail(err)
					return
				}
				*on = ok
			})
		}
		for _, file := range []*FileFacts{&f.Citation, &f.Notes} {
			wg.Go(func() {
				content, found, err := gh.FileAt(ctx, owner, name, file.Path, sha)
				if err != nil {
					fail(err)
					return
				}
				file.Found, file.Content = found, content
			})
		}
		wg.Go(func() {
			run, found, err := gh.LatestWorkflowRun(ctx, owner, name, opts.Workflow, CIEvent, DevBranch, sha)
			switch {
			case errors.Is(err, github.ErrNotFound):
				return // WorkflowFound stays false: a rule, not an outage.
			case err != nil:
				fail(err)
				return
			}
			f.CI = CIFacts{
				WorkflowFound: true, Found: found, Status: run.Status, Conclusion: run.Conclusion,
				Attempt: run.Attempt, URL: run.URL,
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return Facts{}, fmt.Errorf("release-plan: reading %s at %s: %w", repo, tag, errors.Join(errs...))
	}
	return f, nil
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
