package githubsim

import (
	"encoding/base64"
	"net/http"
	"path"
	"sort"
	"strings"
)

func contentRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/contents/{path...}", handle: getContents},
	}
}

// maxInlineContent is the size above which GitHub leaves "content" empty with encoding
// "none" (files of 1 to 100 MB).
const maxInlineContent = 1 << 20

// getContents answers GET /repos/{owner}/{repo}/contents/{path}?ref=: a file as base64
// (wrapped at 60 columns like GitHub's), a directory as an array of entries, or 404.
func getContents(c *call) reply {
	const docs = "/repos/contents#get-repository-content"
	ref := c.r.URL.Query().Get("ref")
	if ref == "" {
		ref = c.repo.defaultBranch
	}
	sha, found := c.repo.resolve(ref)
	if !found {
		return errorReply(http.StatusNotFound, "No commit found for the ref "+ref, docs)
	}
	tree := c.repo.commits[sha].tree
	p := strings.Trim(c.r.PathValue("path"), "/")
	if content, isFile := tree[p]; isFile && p != "" {
		return okJSON(c.fileEntry(p, ref, content, true))
	}
	// A directory is any prefix of a file's path.
	prefix := p + "/"
	if p == "" {
		prefix = ""
	}
	children := map[string]bool{} // name → is a directory
	for fp := range tree {
		rest, under := strings.CutPrefix(fp, prefix)
		if !under {
			continue
		}
		name, _, isDir := strings.Cut(rest, "/")
		children[name] = children[name] || isDir
	}
	if len(children) == 0 {
		return notFound(docs)
	}
	names := make([]string, 0, len(children))
	for n := range children {
		names = append(names, n)
	}
	sort.Strings(names)
	entries := make([]map[string]any, 0, len(names))
	for _, n := range names {
		full := prefix + n
		if children[n] {
			sha := blobSHA([]byte(full))
			self, git, html := c.repoURL("/contents/%s?ref=%s", full, ref), c.repoURL("/git/trees/%s", sha), c.htmlURL("/tree/%s/%s", ref, full)
			entries = append(entries, map[string]any{
				"type": "dir", "name": n, "path": full, "size": 0, "sha": sha,
				"url": self, "git_url": git, "html_url": html, "download_url": nil,
				"_links": map[string]any{"self": self, "git": git, "html": html},
			})
			continue
		}
		entries = append(entries, c.fileEntry(full, ref, tree[full], false))
	}
	return okJSON(entries)
}

// fileEntry is a file's contents object; withContent adds the encoded content, which
// directory listings leave out.
func (c *call) fileEntry(p, ref string, content []byte, withContent bool) map[string]any {
	sha := blobSHA(content)
	self := c.repoURL("/contents/%s?ref=%s", p, ref)
	html := c.htmlURL("/blob/%s/%s", ref, p)
	git := c.repoURL("/git/blobs/%s", sha)
	e := map[string]any{
		"type":         "file",
		"name":         path.Base(p),
		"path":         p,
		"size":         len(content),
		"sha":          sha,
		"url":          self,
		"git_url":      git,
		"html_url":     html,
		"download_url": "https://raw.githubusercontent.com/" + c.repo.FullName() + "/" + ref + "/" + p,
		"_links":       map[string]any{"self": self, "git": git, "html": html},
	}
	if withContent {
		if len(content) > maxInlineContent {
			e["encoding"], e["content"] = "none", ""
		} else {
			e["encoding"], e["content"] = "base64", wrap60(base64.StdEncoding.EncodeToString(content))
		}
	}
	return e
}

// wrap60 breaks base64 into lines of 60 characters, each ending in a newline.
func wrap60(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60])
		b.WriteByte('\n')
		s = s[60:]
	}
	b.WriteString(s)
	b.WriteByte('\n')
	return b.String()
}
