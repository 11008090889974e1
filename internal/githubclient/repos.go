package githubclient

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"dagger/shipyard/internal/github"
)

// RepoPermissions returns what GitHub tells the token of a repository, from GET
// /repos/{owner}/{repo}: the role of the token's user there ("permissions"), the
// repository's visibility and default branch, and a classic token's scopes
// (X-OAuth-Scopes). found is false when the repository does not exist or the token cannot
// see it: GitHub answers both with a 404.
func (c *Client) RepoPermissions(ctx context.Context, owner, repo string) (p github.Permissions, found bool, err error) {
	r, resp, err := c.gh.Repositories.Get(ctx, seg(owner), seg(repo))
	err = apiErr(resp, err)
	if isNotFound(err) {
		return github.Permissions{}, false, nil
	}
	if err != nil {
		return github.Permissions{}, false, fmt.Errorf("github: repository %s/%s: %w", owner, repo, err)
	}
	p = github.Permissions{Private: r.GetPrivate() || r.GetVisibility() == "internal", DefaultBranch: r.GetDefaultBranch()}
	if resp != nil {
		p.Scopes = oauthScopes(resp.Header)
	}
	if perms := r.GetPermissions(); perms != nil {
		p.Known, p.Pull, p.Push, p.Admin = true, perms.GetPull(), perms.GetPush(), perms.GetAdmin()
	}
	return p, true, nil
}

// oauthScopes reads X-OAuth-Scopes, the scopes of a classic token ("repo, workflow"); nil
// when GitHub sent none, as for a fine-grained or App token.
func oauthScopes(h http.Header) []string {
	var out []string
	for _, v := range h.Values("X-OAuth-Scopes") {
		for s := range strings.SplitSeq(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}
