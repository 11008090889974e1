package githubsim

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strconv"
)

// releaseWriteRoutes are the release endpoints a release flow needs beyond creating one:
// reading a release by id (drafts included, for tokens that may see them), editing it
// (moving a draft to another commit, publishing it) and deleting it, plus the repository
// tag listing that tells which versions Git already holds.
func releaseWriteRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/releases/{id}", handle: getRelease},
		{method: http.MethodPatch, pattern: "/repos/{owner}/{repo}/releases/{id}", handle: updateRelease},
		{method: http.MethodDelete, pattern: "/repos/{owner}/{repo}/releases/{id}", handle: deleteRelease},
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/tags", handle: listTags},
	}
}

// releaseByID finds a release the token may see: drafts only with push access, as GitHub
// hides them from everyone else.
func (c *call) releaseByID() (*Release, int) {
	id, err := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	if err != nil {
		return nil, -1
	}
	for i, rel := range c.repo.releases {
		if rel.ID == id && (!rel.Draft || c.mayWrite()) {
			return rel, i
		}
	}
	return nil, -1
}

// getRelease answers GET /repos/{owner}/{repo}/releases/{id}.
func getRelease(c *call) reply {
	rel, _ := c.releaseByID()
	if rel == nil {
		return notFound("/releases/releases#get-a-release")
	}
	return okJSON(c.releaseJSON(rel))
}

// updateRelease answers PATCH /repos/{owner}/{repo}/releases/{id}. Only the fields sent
// change. A release that is published by the update (or stays published under a new tag)
// must be the only published release of its tag (422 already_exists otherwise), and its
// tag is created at target_commitish when it does not exist yet, as when creating a
// published release; an existing tag is left where it is, since GitHub ignores
// target_commitish then.
func updateRelease(c *call) reply {
	const docs = "/releases/releases#update-a-release"
	if !c.mayWrite() {
		return c.writeRefused(docs, "contents=write")
	}
	rel, _ := c.releaseByID()
	if rel == nil {
		return notFound(docs)
	}
	var in struct {
		TagName         *string `json:"tag_name"`
		TargetCommitish *string `json:"target_commitish"`
		Name            *string `json:"name"`
		Body            *string `json:"body"`
		Draft           *bool   `json:"draft"`
		Prerelease      *bool   `json:"prerelease"`
		MakeLatest      *string `json:"make_latest"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON", docs)
	}
	next := *rel
	if in.TagName != nil {
		if *in.TagName == "" {
			return validationFailed(docs, fieldError{Resource: "Release", Code: "missing_field", Field: "tag_name"})
		}
		next.TagName = *in.TagName
	}
	if in.TargetCommitish != nil {
		next.TargetCommitish = *in.TargetCommitish
	}
	if in.Name != nil {
		next.Name = *in.Name
	}
	if in.Body != nil {
		next.Body = *in.Body
	}
	if in.Draft != nil {
		next.Draft = *in.Draft
	}
	if in.Prerelease != nil {
		next.Prerelease = *in.Prerelease
	}
	if in.MakeLatest != nil {
		if !slices.Contains([]string{"true", "false", "legacy"}, *in.MakeLatest) {
			return validationFailed(docs, fieldError{Resource: "Release", Code: "invalid", Field: "make_latest"})
		}
		next.MakeLatest = *in.MakeLatest
	}
	if next.TargetCommitish == "" {
		next.TargetCommitish = c.repo.defaultBranch
	}
	if !next.Draft {
		if other := c.repo.publishedByTag(next.TagName); other != nil && other.ID != rel.ID {
			return validationFailed(docs, fieldError{Resource: "Release", Code: "already_exists", Field: "tag_name"})
		}
		if _, tagged := c.repo.tags[next.TagName]; !tagged {
			target, found := c.repo.resolve(next.TargetCommitish)
			if !found {
				return validationFailed(docs, fieldError{Resource: "Release", Code: "invalid", Field: "target_commitish"})
			}
			c.repo.tags[next.TagName] = target
		}
		if rel.Draft {
			next.PublishedAt = c.s.stamp()
			if next.MakeLatest == "" {
				next.MakeLatest = "true"
			}
		}
	}
	*rel = next
	return okJSON(c.releaseJSON(rel))
}

// deleteRelease answers DELETE /repos/{owner}/{repo}/releases/{id} with 204. As on GitHub,
// the tag of a published release stays.
func deleteRelease(c *call) reply {
	const docs = "/releases/releases#delete-a-release"
	if !c.mayWrite() {
		return c.writeRefused(docs, "contents=write")
	}
	_, i := c.releaseByID()
	if i < 0 {
		return notFound(docs)
	}
	c.repo.releases = slices.Delete(c.repo.releases, i, i+1)
	return reply{status: http.StatusNoContent}
}

// listTags answers GET /repos/{owner}/{repo}/tags: every tag with the commit it peels to,
// paginated (default 30, at most 100), by name in descending order.
func listTags(c *call) reply {
	names := make([]string, 0, len(c.repo.tags))
	for name := range c.repo.tags {
		if _, ok := c.repo.peelTag(name); ok {
			names = append(names, name)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	lo, hi, link := c.page(len(names), 30, 100)
	out := make([]map[string]any, 0, hi-lo)
	for _, name := range names[lo:hi] {
		sha, _ := c.repo.peelTag(name)
		out = append(out, map[string]any{
			"name":        name,
			"commit":      map[string]any{"sha": sha, "url": c.repoURL("/commits/%s", sha)},
			"zipball_url": c.repoURL("/zipball/refs/tags/%s", name),
			"tarball_url": c.repoURL("/tarball/refs/tags/%s", name),
			"node_id":     nodeID("REF", "tags/"+name),
		})
	}
	rep := okJSON(out)
	if link != "" {
		rep.header = http.Header{"Link": {link}}
	}
	return rep
}

// Tag returns the commit a tag peels to ("" if there is no such tag), for tests that
// check where publishing a release put its tag.
func (r *Repo) Tag(name string) string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	sha, _ := r.peelTag(name)
	return sha
}
