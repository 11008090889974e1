package githubsim

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"time"
)

func releaseRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/releases", handle: listReleases},
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/releases/tags/{tag}", handle: getReleaseByTag},
		{method: http.MethodPost, pattern: "/repos/{owner}/{repo}/releases", handle: createRelease},
	}
}

// Release is a GitHub release. Zero ID and CreatedAt get defaults when added.
type Release struct {
	ID              int64
	TagName         string
	TargetCommitish string
	Name            string
	Body            string
	Draft           bool
	Prerelease      bool
	// MakeLatest is the make_latest value the release was created with ("true", "false",
	// "legacy"); GitHub does not echo it in responses.
	MakeLatest  string
	CreatedAt   time.Time
	PublishedAt time.Time // zero for drafts
}

// AddRelease records a release and returns its id.
func (r *Repo) AddRelease(rel Release) int64 {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.addReleaseLocked(rel).ID
}

func (r *Repo) addReleaseLocked(rel Release) *Release {
	if rel.ID == 0 {
		rel.ID = r.s.newID()
	}
	if rel.CreatedAt.IsZero() {
		rel.CreatedAt = r.s.stamp()
	}
	if rel.PublishedAt.IsZero() && !rel.Draft {
		rel.PublishedAt = rel.CreatedAt
	}
	if rel.TargetCommitish == "" {
		rel.TargetCommitish = r.defaultBranch
	}
	r.releases = append(r.releases, &rel)
	return &rel
}

// Releases returns copies of every release, drafts included, in the order added.
func (r *Repo) Releases() []Release {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	out := make([]Release, 0, len(r.releases))
	for _, rel := range r.releases {
		out = append(out, *rel)
	}
	return out
}

// publishedByTag returns the non-draft release of a tag.
func (r *Repo) publishedByTag(tag string) *Release {
	for _, rel := range r.releases {
		if !rel.Draft && rel.TagName == tag {
			return rel
		}
	}
	return nil
}

func (c *call) releaseJSON(rel *Release) map[string]any {
	self := c.repoURL("/releases/%d", rel.ID)
	html := c.htmlURL("/releases/tag/%s", rel.TagName)
	if rel.Draft {
		// Drafts have no public tag page yet.
		html = c.htmlURL("/releases/tag/untagged-%d", rel.ID)
	}
	var published any
	if !rel.Draft {
		published = timestamp(rel.PublishedAt)
	}
	return map[string]any{
		"url":              self,
		"html_url":         html,
		"assets_url":       self + "/assets",
		"upload_url":       "https://uploads.github.com/repos/" + c.repo.FullName() + "/releases/" + strconv.FormatInt(rel.ID, 10) + "/assets{?name,label}",
		"tarball_url":      c.repoURL("/tarball/%s", rel.TagName),
		"zipball_url":      c.repoURL("/zipball/%s", rel.TagName),
		"id":               rel.ID,
		"node_id":          nodeID("RELEASE", strconv.FormatInt(rel.ID, 10)),
		"tag_name":         rel.TagName,
		"target_commitish": rel.TargetCommitish,
		"name":             nullable(rel.Name),
		"body":             nullable(rel.Body),
		"draft":            rel.Draft,
		"prerelease":       rel.Prerelease,
		"immutable":        false,
		"created_at":       timestamp(rel.CreatedAt),
		"published_at":     published,
		"author":           c.s.user("github-actions[bot]", "Bot"),
		"assets":           []any{},
	}
}

// listReleases answers GET /repos/{owner}/{repo}/releases, newest first, paginated
// (default 30, at most 100). As on GitHub, drafts are listed only to tokens with push
// access.
func listReleases(c *call) reply {
	var visible []*Release
	for _, rel := range c.repo.releases {
		if !rel.Draft || c.mayWrite() {
			visible = append(visible, rel)
		}
	}
	sort.SliceStable(visible, func(i, j int) bool {
		if !visible[i].CreatedAt.Equal(visible[j].CreatedAt) {
			return visible[i].CreatedAt.After(visible[j].CreatedAt)
		}
		return visible[i].ID > visible[j].ID
	})
	lo, hi, link := c.page(len(visible), 30, 100)
	out := make([]map[string]any, 0, hi-lo)
	for _, rel := range visible[lo:hi] {
		out = append(out, c.releaseJSON(rel))
	}
	rep := okJSON(out)
	if link != "" {
		rep.header = http.Header{"Link": {link}}
	}
	return rep
}

// getReleaseByTag answers GET /repos/{owner}/{repo}/releases/tags/{tag}. Drafts are never
// found by tag, whoever asks.
func getReleaseByTag(c *call) reply {
	rel := c.repo.publishedByTag(c.r.PathValue("tag"))
	if rel == nil {
		return notFound("/releases/releases#get-a-release-by-tag-name")
	}
	return okJSON(c.releaseJSON(rel))
}

// createRelease answers POST /repos/{owner}/{repo}/releases: 422 already_exists when a
// published release has the tag, 422 for a missing tag_name or a bad make_latest; a
// published release of a tag that does not exist yet creates the tag at
// target_commitish (the default branch when empty).
func createRelease(c *call) reply {
	const docs = "/releases/releases#create-a-release"
	if !c.mayWrite() {
		return c.writeRefused(docs, "contents=write")
	}
	var in struct {
		TagName         string `json:"tag_name"`
		TargetCommitish string `json:"target_commitish"`
		Name            string `json:"name"`
		Body            string `json:"body"`
		Draft           bool   `json:"draft"`
		Prerelease      bool   `json:"prerelease"`
		MakeLatest      string `json:"make_latest"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON", docs)
	}
	if in.TagName == "" {
		return validationFailed(docs, fieldError{Resource: "Release", Code: "missing_field", Field: "tag_name"})
	}
	if in.MakeLatest != "" && !slices.Contains([]string{"true", "false", "legacy"}, in.MakeLatest) {
		return validationFailed(docs, fieldError{Resource: "Release", Code: "invalid", Field: "make_latest"})
	}
	if c.repo.publishedByTag(in.TagName) != nil {
		return validationFailed(docs, fieldError{Resource: "Release", Code: "already_exists", Field: "tag_name"})
	}
	if in.TargetCommitish == "" {
		in.TargetCommitish = c.repo.defaultBranch
	}
	if _, tagged := c.repo.tags[in.TagName]; !tagged {
		target, found := c.repo.resolve(in.TargetCommitish)
		if !found {
			return validationFailed(docs, fieldError{Resource: "Release", Code: "invalid", Field: "target_commitish"})
		}
		if !in.Draft {
			c.repo.tags[in.TagName] = target
		}
	}
	if in.MakeLatest == "" && !in.Draft {
		in.MakeLatest = "true"
	}
	rel := c.repo.addReleaseLocked(Release{
		TagName: in.TagName, TargetCommitish: in.TargetCommitish, Name: in.Name, Body: in.Body,
		Draft: in.Draft, Prerelease: in.Prerelease, MakeLatest: in.MakeLatest,
	})
	rep := reply{status: http.StatusCreated, body: c.releaseJSON(rel)}
	rep.header = http.Header{"Location": {c.repoURL("/releases/%d", rel.ID)}}
	return rep
}
