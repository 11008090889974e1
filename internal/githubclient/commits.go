package githubclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v84/github"

	"dagger/shipyard/internal/github"
)

// IsAncestor reports whether commit sha is on branch: an ancestor of its head, or the
// head itself.
//
// It asks the compare endpoint (base sha, head branch) once: behind_by == 0 means no
// commit of sha's history is missing from the branch. Listing the branch's commits would
// cost a page per 100 commits, and branches-where-head only sees branch heads. per_page=1
// keeps the response small; the counts do not depend on it. Histories without a common
// ancestor, which GitHub answers with a 404, are not ancestors.
func (c *Client) IsAncestor(ctx context.Context, owner, repo, sha, branch string) (bool, error) {
	cmp, resp, err := c.gh.Repositories.CompareCommits(ctx, seg(owner), seg(repo), sha, branch, &gh.ListOptions{PerPage: 1})
	if err = apiErr(resp, err); err != nil {
		var e *github.APIError
		if errors.As(err, &e) && e.StatusCode == http.StatusNotFound && strings.HasPrefix(e.Message, "No common ancestor") {
			return false, nil
		}
		return false, fmt.Errorf("github: compare %s...%s of %s/%s: %w", sha, branch, owner, repo, err)
	}
	// An answer without behind_by is not taken for "behind by 0".
	return cmp.BehindBy != nil && *cmp.BehindBy == 0, nil
}
