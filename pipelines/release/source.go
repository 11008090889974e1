package release

import (
	"context"
	"fmt"

	"dagger.io/dagger"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/pipelines/releasegate"
)

// Source fetches the source to build through Dagger's git API: it resolves the tag, checks
// that it still names the commit release-plan checked, and returns that commit's tree
// (without .git: the version is given to the build, never derived from history). The tree
// is fetched by commit, not by tag, so what is built is exactly what was checked, and it is
// fetched here. The caller's working tree is never built for a release.
func Source(ctx context.Context, cfg Config, plan releasegate.Plan) (*dagger.Directory, error) {
	if plan.Commit == "" {
		return nil, fmt.Errorf("the plan names no commit")
	}
	repo := cfg.gitRepo()
	commit, err := repo.Tag(plan.Tag).Commit(ctx)
	if err != nil {
		return nil, fmt.Errorf("resolving tag %s at %s: %w", plan.Tag, cfg.gitURL(), err)
	}
	if commit != plan.Commit {
		return nil, flow.Advise(fmt.Errorf("tag %s at %s is commit %s, but release-plan checked commit %s", plan.Tag, cfg.gitURL(), commit, plan.Commit),
			"stop: a release tag never moves; find out why "+cfg.gitURL()+" disagrees with GitHub's API, and release a higher version if the tag was replaced")
	}
	tree := repo.Commit(commit).Tree(dagger.GitRefTreeOpts{DiscardGitDir: true})
	// Fetch it now (the build needs it anyway): a host that lists the tag but cannot serve
	// its commit fails this step, which names the source, not the build.
	entries, err := tree.Entries(ctx)
	if err != nil {
		return nil, fmt.Errorf("fetching commit %s from %s: %w", commit, cfg.gitURL(), err)
	}
	flow.Logf(ctx, "%s is commit %s at %s (%d entries at its root)", plan.Tag, commit, cfg.gitURL(), len(entries))
	return tree, nil
}

func (c Config) gitRepo() *dagger.GitRepository {
	opts := dagger.GitOpts{ExperimentalServiceHost: c.GitService}
	if token := c.gitToken(); token != nil {
		opts.HTTPAuthUsername, opts.HTTPAuthToken = "x-access-token", token
	}
	return c.Client.Git(c.gitURL(), opts)
}

// gitToken is what authenticates the fetch: the GitHub token for GitHub's own URL, nothing
// for a URL given with GitURL, which may be any host the token must never reach.
func (c Config) gitToken() *dagger.Secret {
	if c.GitURL != "" {
		return nil
	}
	return c.GitHubToken
}
