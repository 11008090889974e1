package github

import (
	"context"
	"fmt"
)

// Permissions are what a token may do in a repository, as GitHub reports them to the
// token's holder.
type Permissions struct {
	// Known is false when GitHub sent no permissions (an unauthenticated read).
	Known bool
	Pull  bool
	Push  bool
	Admin bool
}

// RepoPermissions returns the authenticated token's permissions on a repository, from
// GET /repos/{owner}/{repo}. found is false when the repository does not exist or the
// token cannot see it: GitHub answers both with a 404.
func (c *Client) RepoPermissions(ctx context.Context, owner, repo string) (p Permissions, found bool, err error) {
	r, resp, err := c.gh.Repositories.Get(ctx, seg(owner), seg(repo))
	err = apiErr(resp, err)
	if isNotFound(err) {
		return Permissions{}, false, nil
	}
	if err != nil {
		return Permissions{}, false, fmt.Errorf("github: repository %s/%s: %w", owner, repo, err)
	}
	perms := r.GetPermissions()
	if perms == nil {
		return Permissions{}, true, nil
	}
	return Permissions{Known: true, Pull: perms.GetPull(), Push: perms.GetPush(), Admin: perms.GetAdmin()}, true, nil
}
