package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// comparisonJSON holds the fields of a three-dot compare the client reads.
type comparisonJSON struct {
	Status  string `json:"status"`
	AheadBy int    `json:"ahead_by"`
	// BehindBy is a pointer so that an answer without it is not taken for "behind by 0".
	BehindBy *int `json:"behind_by"`
	Files    []struct {
		Filename string `json:"filename"`
		Status   string `json:"status"`
		SHA      string `json:"sha"`
	} `json:"files"`
}

// compare asks GET /repos/{owner}/{repo}/compare/{base}...{head}. Each side is escaped as
// one path segment, so a branch such as automation/x travels as automation%2Fx.
func (c *Client) compare(ctx context.Context, owner, repo, base, head string, query url.Values) (comparisonJSON, error) {
	var cmp comparisonJSON
	_, err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "compare/"+seg(base)+"..."+seg(head)), query, nil, &cmp)
	return cmp, err
}

// IsAncestor reports whether commit sha is on branch: an ancestor of its head, or the
// head itself.
//
// It asks the compare endpoint (base sha, head branch) once: behind_by == 0 means no
// commit of sha's history is missing from the branch. Listing the branch's commits would
// cost a page per 100 commits, and branches-where-head only sees branch heads. per_page=1
// keeps the response small; the counts do not depend on it. Histories without a common
// ancestor, which GitHub answers with a 404, are not ancestors.
func (c *Client) IsAncestor(ctx context.Context, owner, repo, sha, branch string) (bool, error) {
	cmp, err := c.compare(ctx, owner, repo, sha, branch, pageQuery(1, 0))
	if err != nil {
		var e *apiError
		if errors.As(err, &e) && e.StatusCode == http.StatusNotFound && strings.HasPrefix(e.Message, "No common ancestor") {
			return false, nil
		}
		return false, fmt.Errorf("github: compare %s...%s of %s/%s: %w", sha, branch, owner, repo, apiErr(err))
	}
	return cmp.BehindBy != nil && *cmp.BehindBy == 0, nil
}
