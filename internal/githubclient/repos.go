package githubclient

import (
	"context"
	"fmt"

	"dagger/shipyard/internal/github"
)

// RepoPermissions returns the authenticated token's permissions on a repository, from
// GET /repos/{owner}/{repo}. found is false when the repository does not exist or the
// token cannot see it: GitHub answers both with a 404.
func (c *Client) RepoPermissions(ctx context.Context, owner, repo string) (p github.Permissions, found bool, err error) {
	r, resp, err := c.gh.Repositories.Get(ctx, seg(owner), seg(repo))
	err = apiErr(resp, err)
	if isNotFound(err) {
		return github.Permissions{}, false, nil
	}
	if err != nil {
		return github.Permissions{}, false, fmt.Errorf("github: repository %s/%s: %w", owner, repo, err)
	}
	perms := r.GetPermissions()
	if perms == nil {
		return github.Permissions{}, true, nil
	}
	return github.Permissions{Known: true, Pull: perms.GetPull(), Push: perms.GetPush(), Admin: perms.GetAdmin()}, true, nil
}
