package githubsim

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// blobRoutes are the Git database's blob endpoints and the tree read, with which a client
// writes files of any bytes (base64) and learns what a tree already holds, so it sends only
// what changed.
func blobRoutes() []route {
	return []route{
		{method: http.MethodPost, pattern: "/repos/{owner}/{repo}/git/blobs", handle: createBlob},
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/git/blobs/{sha}", handle: getBlob},
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/git/trees/{sha...}", handle: getTree},
	}
}

// maxRecursiveTreeEntries is GitHub's bound on a recursive tree listing; past it the
// answer is cut and says "truncated": true.
const maxRecursiveTreeEntries = 100_000

// createBlob answers POST /repos/{owner}/{repo}/git/blobs: content in "utf-8" (the
// default) or "base64" encoding; 201 with the blob's SHA and URL.
func createBlob(c *call) reply {
	const docs = "/git/blobs#create-a-blob"
	if !c.mayWrite() {
		return c.writeRefused(docs, "contents=write")
	}
	var in struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON", docs)
	}
	if in.Content == nil {
		return validationFailed(docs, fieldError{Resource: "Blob", Code: "missing_field", Field: "content"})
	}
	var content []byte
	switch in.Encoding {
	case "", "utf-8":
		content = []byte(*in.Content)
	case "base64":
		b, err := base64.StdEncoding.DecodeString(*in.Content)
		if err != nil {
			return validationFailed(docs, fieldError{Resource: "Blob", Code: "invalid", Field: "content"})
		}
		content = b
	default:
		return validationFailed(docs, fieldError{Resource: "Blob", Code: "invalid", Field: "encoding"})
	}
	sha := blobSHA(content)
	c.repo.extras().blobs[sha] = content
	rep := reply{status: http.StatusCreated, body: map[string]any{"url": c.repoURL("/git/blobs/%s", sha), "sha": sha}}
	rep.header = http.Header{"Location": {c.repoURL("/git/blobs/%s", sha)}}
	return rep
}

// getBlob answers GET /repos/{owner}/{repo}/git/blobs/{sha}: the content in base64, wrapped
// at 60 characters as GitHub sends it.
func getBlob(c *call) reply {
	sha := c.r.PathValue("sha")
	content, ok := c.repo.blobBySHA(sha)
	if !ok {
		return notFound("/git/blobs#get-a-blob")
	}
	enc := base64.StdEncoding.EncodeToString(content)
	var wrapped strings.Builder
	for len(enc) > 60 {
		wrapped.WriteString(enc[:60] + "\n")
		enc = enc[60:]
	}
	wrapped.WriteString(enc + "\n")
	return okJSON(map[string]any{
		"sha": sha, "node_id": nodeID("BLOB", sha), "size": len(content), "url": c.repoURL("/git/blobs/%s", sha),
		"content": wrapped.String(), "encoding": "base64",
	})
}

// getTree answers GET /repos/{owner}/{repo}/git/trees/{tree_sha}, where tree_sha is a tree
// SHA, or a commit SHA or ref whose tree is meant. Without "recursive" it lists the top
// level; with it (any value), every blob and subtree, cut at GitHub's bound.
func getTree(c *call) reply {
	const docs = "/git/trees#get-a-tree"
	ref := c.r.PathValue("sha")
	files, modes, ok := c.repo.treeBySHA(ref)
	sha := ref
	if !ok {
		commit, found := c.repo.resolve(ref)
		if !found {
			return notFound(docs)
		}
		files, modes, sha = c.repo.commits[commit].tree, c.repo.extras().commitModes[commit], c.repo.commitTreeSHA(commit)
	}
	if !c.r.URL.Query().Has("recursive") {
		return okJSON(c.treeJSON(sha, files, modes))
	}
	var entries []map[string]any
	dirs := map[string]bool{}
	for p, content := range files {
		entries = append(entries, c.blobEntry(p, content, modes[p]))
		for d := p; strings.Contains(d, "/"); {
			d = d[:strings.LastIndex(d, "/")]
			dirs[d] = true
		}
	}
	for d := range dirs {
		sub, subModes := map[string][]byte{}, map[string]string{}
		for p, content := range files {
			if rest, ok := strings.CutPrefix(p, d+"/"); ok {
				sub[rest] = content
				if m, ok := modes[p]; ok {
					subModes[rest] = m
				}
			}
		}
		s := treeSHAModes(sub, subModes)
		entries = append(entries, map[string]any{"path": d, "mode": "040000", "type": "tree", "sha": s, "url": c.repoURL("/git/trees/%s", s)})
	}
	slices.SortFunc(entries, func(a, b map[string]any) int { return strings.Compare(a["path"].(string), b["path"].(string)) })
	truncated := len(entries) > maxRecursiveTreeEntries
	if truncated {
		entries = entries[:maxRecursiveTreeEntries]
	}
	if entries == nil {
		entries = []map[string]any{}
	}
	return okJSON(map[string]any{"sha": sha, "url": c.repoURL("/git/trees/%s", sha), "tree": entries, "truncated": truncated})
}

// blobEntry is a file's entry in a tree listing.
func (c *call) blobEntry(path string, content []byte, mode string) map[string]any {
	if mode == "" {
		mode = modeFile
	}
	sha := blobSHA(content)
	return map[string]any{
		"path": path, "mode": mode, "type": "blob", "size": len(content),
		"sha": sha, "url": c.repoURL("/git/blobs/%s", sha),
	}
}
