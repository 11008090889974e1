package githubclient

import (
	"context"
	"fmt"
)

// CommitsAfter asks the compare endpoint once (sha...branch) whether sha is on branch and
// which commits of branch come after it, oldest first. complete is false when GitHub lists
// fewer commits than branch is ahead by (it lists up to 250). A sha without common history
// with branch is not on it.
func (c *Client) CommitsAfter(ctx context.Context, owner, repo, sha, branch string) (onBranch bool, after []string, complete bool, err error) {
	cmp, resp, err := c.gh.Repositories.CompareCommits(ctx, seg(owner), seg(repo), sha, branch, nil)
	err = apiErr(resp, err)
	if isNotFound(err) {
		return false, nil, true, nil
	}
	if err != nil {
		return false, nil, false, fmt.Errorf("github: compare %s...%s of %s/%s: %w", sha, branch, owner, repo, err)
	}
	// ahead: branch has commits after sha; identical: sha is its head.
	if s := cmp.GetStatus(); s != "ahead" && s != "identical" {
		return false, nil, true, nil
	}
	for _, rc := range cmp.Commits {
		after = append(after, rc.GetSHA())
	}
	return true, after, len(after) == cmp.GetAheadBy(), nil
}
