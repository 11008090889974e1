package githubsim

import (
	"net/http"
	"sort"
	"strings"
)

func commitRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/compare/{basehead}", handle: compareCommits},
	}
}

// commitJSON is the repository-commit shape of compare's base_commit, merge_base_commit
// and commits entries.
func (c *call) commitJSON(sha string) map[string]any {
	cm := c.repo.commits[sha]
	parents := make([]map[string]any, 0, len(cm.parents))
	for _, p := range cm.parents {
		parents = append(parents, map[string]any{
			"sha": p, "url": c.repoURL("/commits/%s", p), "html_url": c.htmlURL("/commit/%s", p),
		})
	}
	who := map[string]any{"name": "Maintainer", "email": "maintainer@example.org", "date": timestamp(cm.date)}
	tree := treeSHA(cm.tree)
	return map[string]any{
		"sha":          sha,
		"node_id":      nodeID("COMMIT", sha),
		"url":          c.repoURL("/commits/%s", sha),
		"html_url":     c.htmlURL("/commit/%s", sha),
		"comments_url": c.repoURL("/commits/%s/comments", sha),
		"commit": map[string]any{
			"message":       cm.message,
			"author":        who,
			"committer":     who,
			"url":           c.repoURL("/git/commits/%s", sha),
			"comment_count": 0,
			"tree":          map[string]any{"sha": tree, "url": c.repoURL("/git/trees/%s", tree)},
		},
		// The seeded author's email belongs to no GitHub account: GitHub sends null.
		"author":    nil,
		"committer": nil,
		"parents":   parents,
	}
}

// compareCommits answers GET /repos/{owner}/{repo}/compare/{base}...{head}. The counts
// come from the real commit DAG: ahead_by counts commits reachable from head but not from
// base, behind_by the reverse, and status is identical, ahead, behind or diverged; so
// "base is an ancestor of head" is exactly behind_by == 0.
func compareCommits(c *call) reply {
	const docs = "/commits/commits#compare-two-commits"
	base, head, found := strings.Cut(c.r.PathValue("basehead"), "...")
	if !found {
		return notFound(docs)
	}
	b, okB := c.repo.resolve(base)
	h, okH := c.repo.resolve(head)
	if !okB || !okH {
		return notFound(docs)
	}
	fromBase, fromHead := c.repo.ancestors(b), c.repo.ancestors(h)
	var ahead, common []string
	behind := 0
	for sha := range fromHead {
		if fromBase[sha] {
			common = append(common, sha)
		} else {
			ahead = append(ahead, sha)
		}
	}
	for sha := range fromBase {
		if !fromHead[sha] {
			behind++
		}
	}
	mergeBase, ok := c.repo.mergeBase(common)
	if !ok {
		return errorReply(http.StatusNotFound, "No common ancestor between "+base+" and "+head+".", docs)
	}
	status := "diverged"
	switch {
	case len(ahead) == 0 && behind == 0:
		status = "identical"
	case behind == 0:
		status = "ahead"
	case len(ahead) == 0:
		status = "behind"
	}
	// Commits are listed oldest first, as GitHub does.
	sort.Slice(ahead, func(i, j int) bool {
		ci, cj := c.repo.commits[ahead[i]], c.repo.commits[ahead[j]]
		if !ci.date.Equal(cj.date) {
			return ci.date.Before(cj.date)
		}
		return ahead[i] < ahead[j]
	})
	lo, hi, link := c.page(len(ahead), 250, 250)
	commits := make([]map[string]any, 0, hi-lo)
	for _, sha := range ahead[lo:hi] {
		commits = append(commits, c.commitJSON(sha))
	}
	rep := okJSON(map[string]any{
		"url":               c.repoURL("/compare/%s...%s", base, head),
		"html_url":          c.htmlURL("/compare/%s...%s", base, head),
		"permalink_url":     c.htmlURL("/compare/%s...%s", b, h),
		"diff_url":          c.htmlURL("/compare/%s...%s.diff", base, head),
		"patch_url":         c.htmlURL("/compare/%s...%s.patch", base, head),
		"base_commit":       c.commitJSON(b),
		"merge_base_commit": c.commitJSON(mergeBase),
		"status":            status,
		"ahead_by":          len(ahead),
		"behind_by":         behind,
		"total_commits":     len(ahead),
		"commits":           commits,
		"files":             c.repo.changedFiles(mergeBase, h),
	})
	if link != "" {
		rep.header = http.Header{"Link": {link}}
	}
	return rep
}

// mergeBase picks the best common ancestor: one that no other common ancestor descends
// from (the newest such when criss-cross merges leave several).
func (r *Repo) mergeBase(common []string) (string, bool) {
	var parents []string
	for _, sha := range common {
		parents = append(parents, r.commits[sha].parents...)
	}
	dominated := r.ancestors(parents...)
	best := ""
	for _, sha := range common {
		if dominated[sha] {
			continue
		}
		if best == "" || r.commits[sha].date.After(r.commits[best].date) ||
			(r.commits[sha].date.Equal(r.commits[best].date) && sha < best) {
			best = sha
		}
	}
	return best, best != ""
}

// changedFiles lists the paths whose content differs between two commits' trees.
func (r *Repo) changedFiles(from, to string) []map[string]any {
	a, b := r.commits[from].tree, r.commits[to].tree
	paths := map[string]bool{}
	for p := range a {
		paths[p] = true
	}
	for p := range b {
		paths[p] = true
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	files := []map[string]any{}
	entry := func(p, status string, old, cur []byte, at string) map[string]any {
		sha := blobSHA(cur)
		if status == "removed" {
			sha = blobSHA(old)
		}
		add, del := lineDelta(old, cur)
		return map[string]any{
			"filename": p, "status": status, "sha": sha,
			"additions": add, "deletions": del, "changes": add + del,
			"blob_url":     "https://github.com/" + r.FullName() + "/blob/" + at + "/" + p,
			"raw_url":      "https://github.com/" + r.FullName() + "/raw/" + at + "/" + p,
			"contents_url": r.s.URL + "/repos/" + r.FullName() + "/contents/" + p + "?ref=" + at,
		}
	}
	for _, p := range sorted {
		old, inA := a[p]
		cur, inB := b[p]
		switch {
		case !inA:
			files = append(files, entry(p, "added", nil, cur, to))
		case !inB:
			files = append(files, entry(p, "removed", old, nil, from))
		case string(old) != string(cur):
			files = append(files, entry(p, "modified", old, cur, to))
		}
	}
	return files
}

// lineDelta counts the lines only in cur (additions) and only in old (deletions), as
// multisets: enough for a diff's counts, not for its hunks.
func lineDelta(old, cur []byte) (additions, deletions int) {
	seen := map[string]int{}
	for l := range strings.Lines(string(old)) {
		seen[l]++
	}
	for l := range strings.Lines(string(cur)) {
		if seen[l] > 0 {
			seen[l]--
			continue
		}
		additions++
	}
	for _, n := range seen {
		deletions += n
	}
	return additions, deletions
}
