package githubsim

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
)

// gitDataRoutes are the Git database endpoints that push a commit without a checkout:
// create a tree on top of a base tree, create a commit of it, then create or move a ref.
// GET /git/ref/{ref} is served by refs.go.
func gitDataRoutes() []route {
	return []route{
		{method: http.MethodPost, pattern: "/repos/{owner}/{repo}/git/trees", handle: createTree},
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/git/commits/{sha}", handle: getGitCommit},
		{method: http.MethodPost, pattern: "/repos/{owner}/{repo}/git/commits", handle: createGitCommit},
		{method: http.MethodPost, pattern: "/repos/{owner}/{repo}/git/refs", handle: createRef},
		{method: http.MethodPatch, pattern: "/repos/{owner}/{repo}/git/refs/{ref...}", handle: updateRef},
	}
}

// repoExtras is the state the pull request and Git data endpoints add to a repository:
// tree objects created through the API, and pull requests. It lives beside Repo, keyed by
// it, so that each resource's state stays in the file of its handlers; like everything
// else it is read and changed under the server's lock.
type repoExtras struct {
	trees      map[string]map[string][]byte // tree SHA → files (path → content)
	pulls      []*PullRequest
	nextNumber int
	// Modes other than 100644 (100755, 120000), by path: of the trees created through the
	// API (by tree SHA) and of the commits made of them (by commit SHA).
	treeModes, commitModes map[string]map[string]string
	blobs                  map[string][]byte // blobs created through the API, by SHA
}

var extrasByRepo sync.Map // *Repo → *repoExtras

// extras returns the repository's extra state, creating it on first use. The entry is
// dropped when the test that made the server ends.
func (r *Repo) extras() *repoExtras {
	if x, ok := extrasByRepo.Load(r); ok {
		return x.(*repoExtras)
	}
	x, loaded := extrasByRepo.LoadOrStore(r, &repoExtras{
		trees: map[string]map[string][]byte{}, nextNumber: 1,
		treeModes: map[string]map[string]string{}, commitModes: map[string]map[string]string{}, blobs: map[string][]byte{},
	})
	if !loaded {
		r.s.tb.Cleanup(func() { extrasByRepo.Delete(r) })
	}
	return x.(*repoExtras)
}

// modeFile is the mode of a regular file, which the mode maps leave out.
const modeFile = "100644"

// treeSHA names a file tree by its content: the same files give the same SHA, as in Git
// (the hash is not Git's own tree encoding, which the simulator never exposes).
func treeSHA(tree map[string][]byte) string { return treeSHAModes(tree, nil) }

// treeSHAModes is treeSHA of a tree whose entries may have modes other than 100644, which
// count as in Git: an executable bit alone makes another tree.
func treeSHAModes(tree map[string][]byte, modes map[string]string) string {
	paths := slices.Sorted(maps.Keys(tree))
	h := sha1.New()
	fmt.Fprint(h, "tree\n")
	for _, p := range paths {
		if m, ok := modes[p]; ok && m != modeFile {
			fmt.Fprintf(h, "%s %s %s\n", p, blobSHA(tree[p]), m)
			continue
		}
		fmt.Fprintf(h, "%s %s\n", p, blobSHA(tree[p]))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// commitTreeSHA is the SHA of a commit's tree, its modes included.
func (r *Repo) commitTreeSHA(sha string) string {
	return treeSHAModes(r.commits[sha].tree, r.extras().commitModes[sha])
}

// treeBySHA finds a tree object: one created through the API, or the tree of a commit. The
// modes map holds the entries that are not 100644.
func (r *Repo) treeBySHA(sha string) (files map[string][]byte, modes map[string]string, ok bool) {
	x := r.extras()
	if t, ok := x.trees[sha]; ok {
		return t, x.treeModes[sha], true
	}
	for csha, c := range r.commits {
		if r.commitTreeSHA(csha) == sha {
			return c.tree, x.commitModes[csha], true
		}
	}
	return nil, nil, false
}

// blobBySHA finds a file's content by its blob SHA anywhere in the repository.
func (r *Repo) blobBySHA(sha string) ([]byte, bool) {
	if b, ok := r.extras().blobs[sha]; ok {
		return b, true
	}
	for _, t := range r.extras().trees {
		for _, content := range t {
			if blobSHA(content) == sha {
				return content, true
			}
		}
	}
	for _, c := range r.commits {
		for _, content := range c.tree {
			if blobSHA(content) == sha {
				return content, true
			}
		}
	}
	return nil, false
}

// Files returns the files of a branch, tag or commit (nil when ref does not resolve), for
// tests that check what a flow pushed.
func (r *Repo) Files(ref string) map[string]string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	sha, ok := r.resolve(ref)
	if !ok {
		return nil
	}
	out := map[string]string{}
	for p, content := range r.commits[sha].tree {
		out[p] = string(content)
	}
	return out
}

// Modes returns the modes other than 100644 (100755, 120000) of the files of a branch, tag
// or commit, by path, for tests that check what a flow pushed.
func (r *Repo) Modes(ref string) map[string]string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	sha, ok := r.resolve(ref)
	if !ok {
		return nil
	}
	return maps.Clone(r.extras().commitModes[sha])
}

// Parents returns a commit's parents (nil for an unknown commit).
func (r *Repo) Parents(sha string) []string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if c, ok := r.commits[sha]; ok {
		return slices.Clone(c.parents)
	}
	return nil
}

// Message returns a commit's message ("" for an unknown commit).
func (r *Repo) Message(sha string) string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if c, ok := r.commits[sha]; ok {
		return c.message
	}
	return ""
}

// noPushAccess is GitHub's answer to a write by a token without push access.
func noPushAccess(docs string) reply {
	return errorReply(http.StatusForbidden, "Resource not accessible by integration", docs)
}

// gitUnprocessable is a 422 whose message says what is wrong, as GitHub answers the Git
// database endpoints (they carry no "errors" array).
func gitUnprocessable(message, docs string) reply {
	return errorReply(http.StatusUnprocessableEntity, message, docs)
}

// validTreePath rejects what Git rejects in a tree path: empty, absolute or "."/".."
// components, and NUL.
func validTreePath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.ContainsRune(p, 0) {
		return false
	}
	for part := range strings.SplitSeq(p, "/") {
		if part == "" || part == "." || part == ".." || part == ".git" {
			return false
		}
	}
	return true
}

// createTree answers POST /repos/{owner}/{repo}/git/trees: the base tree (if any) with
// each entry applied in order. An entry sets a file from inline "content" or an existing
// blob "sha"; "sha": null deletes the path (a file, or a folder with everything in it).
// File modes 100644 and 100755 and symlinks (120000, whose content is the link's target)
// are modelled; subtrees (040000) and submodules (160000) are not.
func createTree(c *call) reply {
	const docs = "/git/trees#create-a-tree"
	if !c.mayWrite() {
		return c.writeRefused(docs, "contents=write")
	}
	var in struct {
		BaseTree string                       `json:"base_tree"`
		Tree     []map[string]json.RawMessage `json:"tree"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON", docs)
	}
	if in.Tree == nil {
		return validationFailed(docs, fieldError{Resource: "Tree", Code: "missing_field", Field: "tree"})
	}
	files, modes := map[string][]byte{}, map[string]string{}
	if in.BaseTree != "" {
		base, baseModes, ok := c.repo.treeBySHA(in.BaseTree)
		if !ok {
			return gitUnprocessable("base_tree is not a valid tree oid", docs)
		}
		files, modes = maps.Clone(base), maps.Clone(baseModes)
		if modes == nil {
			modes = map[string]string{}
		}
	}
	for i, entry := range in.Tree {
		if failure, ok := c.applyTreeEntry(files, modes, i, entry, docs); !ok {
			return failure
		}
	}
	sha := treeSHAModes(files, modes)
	c.repo.extras().trees[sha] = files
	if len(modes) > 0 {
		c.repo.extras().treeModes[sha] = modes
	}
	rep := reply{status: http.StatusCreated, body: c.treeJSON(sha, files, modes)}
	rep.header = http.Header{"Location": {c.repoURL("/git/trees/%s", sha)}}
	return rep
}

// applyTreeEntry applies the i-th entry of a create-a-tree request to files and modes
// (which holds the modes other than 100644), or answers why the entry is refused.
func (c *call) applyTreeEntry(files map[string][]byte, modes map[string]string, i int, entry map[string]json.RawMessage, docs string) (failure reply, ok bool) {
	var p, mode string
	_ = json.Unmarshal(entry["path"], &p)
	_ = json.Unmarshal(entry["mode"], &mode)
	if !validTreePath(p) {
		return gitUnprocessable(fmt.Sprintf("tree.path contains a malformed path component (entry %d)", i), docs), false
	}
	if sha, hasSHA := entry["sha"]; hasSHA && string(sha) == "null" {
		removeTreePath(files, modes, p)
		return reply{}, true
	}
	if mode != modeFile && mode != "100755" && mode != "120000" {
		return gitUnprocessable(fmt.Sprintf("tree.mode %q is not a file mode the simulator models (100644, 100755, 120000)", mode), docs), false
	}
	if mode == modeFile {
		delete(modes, p)
	} else {
		modes[p] = mode
	}
	content, failure, ok := c.treeEntryContent(entry, docs)
	if ok {
		files[p] = content
	}
	return failure, ok
}

// removeTreePath deletes p from a tree: the file, or the folder with everything in it.
func removeTreePath(files map[string][]byte, modes map[string]string, p string) {
	delete(files, p)
	delete(modes, p)
	for f := range files {
		if strings.HasPrefix(f, p+"/") {
			delete(files, f)
			delete(modes, f)
		}
	}
}

// treeEntryContent is the content a tree entry sets: its inline "content", or the blob its
// "sha" names; exactly one of them must be given.
func (c *call) treeEntryContent(entry map[string]json.RawMessage, docs string) (content []byte, failure reply, ok bool) {
	shaRaw, hasSHA := entry["sha"]
	contentRaw, hasContent := entry["content"]
	switch {
	case hasContent && hasSHA:
		return nil, gitUnprocessable("tree.sha and tree.content cannot both be given", docs), false
	case hasContent:
		var text string
		if err := json.Unmarshal(contentRaw, &text); err != nil {
			return nil, errorReply(http.StatusBadRequest, "Problems parsing JSON", docs), false
		}
		return []byte(text), reply{}, true
	case hasSHA:
		var sha string
		_ = json.Unmarshal(shaRaw, &sha)
		blob, found := c.repo.blobBySHA(sha)
		if !found {
			return nil, gitUnprocessable("tree.sha "+sha+" is not a valid blob", docs), false
		}
		return blob, reply{}, true
	}
	return nil, gitUnprocessable("Must supply either tree.sha or tree.content", docs), false
}

// treeJSON is a tree object with its top-level entries, as create-a-tree returns it.
func (c *call) treeJSON(sha string, files map[string][]byte, modes map[string]string) map[string]any {
	dirs := map[string]map[string][]byte{}
	dirModes := map[string]map[string]string{}
	var entries []map[string]any
	for p, content := range files {
		name, rest, isDir := strings.Cut(p, "/")
		if isDir {
			if dirs[name] == nil {
				dirs[name], dirModes[name] = map[string][]byte{}, map[string]string{}
			}
			dirs[name][rest] = content
			if m, ok := modes[p]; ok {
				dirModes[name][rest] = m
			}
			continue
		}
		entries = append(entries, c.blobEntry(name, content, modes[p]))
	}
	for name, sub := range dirs {
		s := treeSHAModes(sub, dirModes[name])
		entries = append(entries, map[string]any{
			"path": name, "mode": "040000", "type": "tree", "sha": s, "url": c.repoURL("/git/trees/%s", s),
		})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i]["path"].(string) < entries[j]["path"].(string) })
	if entries == nil {
		entries = []map[string]any{}
	}
	return map[string]any{"sha": sha, "url": c.repoURL("/git/trees/%s", sha), "tree": entries, "truncated": false}
}

// gitCommitJSON is the Git database shape of a commit (GET and POST /git/commits).
func (c *call) gitCommitJSON(sha string) map[string]any {
	cm := c.repo.commits[sha]
	parents := make([]map[string]any, 0, len(cm.parents))
	for _, p := range cm.parents {
		parents = append(parents, map[string]any{
			"sha": p, "url": c.repoURL("/git/commits/%s", p), "html_url": c.htmlURL("/commit/%s", p),
		})
	}
	who := map[string]any{"name": "Maintainer", "email": "maintainer@example.org", "date": timestamp(cm.date)}
	tree := c.repo.commitTreeSHA(sha)
	return map[string]any{
		"sha":       sha,
		"node_id":   nodeID("COMMIT", sha),
		"url":       c.repoURL("/git/commits/%s", sha),
		"html_url":  c.htmlURL("/commit/%s", sha),
		"author":    who,
		"committer": who,
		"message":   cm.message,
		"tree":      map[string]any{"sha": tree, "url": c.repoURL("/git/trees/%s", tree)},
		"parents":   parents,
		"verification": map[string]any{
			"verified": false, "reason": "unsigned", "signature": nil, "payload": nil, "verified_at": nil,
		},
	}
}

// getGitCommit answers GET /repos/{owner}/{repo}/git/commits/{sha}: a full commit SHA only.
func getGitCommit(c *call) reply {
	sha := c.r.PathValue("sha")
	if _, ok := c.repo.commits[sha]; !ok {
		return notFound("/git/commits#get-a-commit-object")
	}
	return okJSON(c.gitCommitJSON(sha))
}

// createGitCommit answers POST /repos/{owner}/{repo}/git/commits: a commit of an existing
// tree with existing parents. It moves no ref.
func createGitCommit(c *call) reply {
	const docs = "/git/commits#create-a-commit"
	if !c.mayWrite() {
		return c.writeRefused(docs, "contents=write")
	}
	var in struct {
		Message *string  `json:"message"`
		Tree    string   `json:"tree"`
		Parents []string `json:"parents"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON", docs)
	}
	if in.Message == nil {
		return validationFailed(docs, fieldError{Resource: "Commit", Code: "missing_field", Field: "message"})
	}
	tree, modes, ok := c.repo.treeBySHA(in.Tree)
	if !ok {
		return gitUnprocessable("Tree SHA does not exist", docs)
	}
	for _, p := range in.Parents {
		if _, ok := c.repo.commits[p]; !ok {
			return gitUnprocessable("Parent SHA does not exist or is not a commit object", docs)
		}
	}
	sha := c.repo.addTreeCommitLocked(*in.Message, in.Parents, tree)
	if len(modes) > 0 {
		c.repo.extras().commitModes[sha] = maps.Clone(modes)
	}
	rep := reply{status: http.StatusCreated, body: c.gitCommitJSON(sha)}
	rep.header = http.Header{"Location": {c.repoURL("/git/commits/%s", sha)}}
	return rep
}

// addTreeCommitLocked records a commit of a whole tree (not a change on its first parent's
// tree), hashed the way AddCommit hashes, and returns its SHA.
func (r *Repo) addTreeCommitLocked(message string, parents []string, tree map[string][]byte) string {
	cm := &commit{parents: slices.Clone(parents), message: message, date: r.s.stamp(), tree: maps.Clone(tree)}
	h := sha1.New()
	fmt.Fprintf(h, "commit %d\n%s\n%s\n%s\n", r.s.newID(), strings.Join(parents, " "), message, treeSHA(tree))
	cm.sha = hex.EncodeToString(h.Sum(nil))
	r.commits[cm.sha] = cm
	return cm.sha
}

// refJSON is a ref as the refs endpoints return it; name is "heads/…" or "tags/…".
func (c *call) refJSON(name, sha string) map[string]any {
	return map[string]any{
		"ref":     "refs/" + name,
		"node_id": nodeID("REF", name),
		"url":     c.repoURL("/git/refs/%s", name),
		"object":  c.objectOf(sha),
	}
}

// refTarget returns the map a ref name ("heads/…" or "tags/…") lives in and the short name.
func (r *Repo) refTarget(name string) (map[string]string, string, bool) {
	if b, ok := strings.CutPrefix(name, "heads/"); ok && b != "" {
		return r.branches, b, true
	}
	if t, ok := strings.CutPrefix(name, "tags/"); ok && t != "" {
		return r.tags, t, true
	}
	return nil, "", false
}

// objectExists reports whether sha names a commit or a tag object of the repository.
func (r *Repo) objectExists(sha string) bool {
	if _, ok := r.commits[sha]; ok {
		return true
	}
	_, ok := r.tagObjects[sha]
	return ok
}

// createRef answers POST /repos/{owner}/{repo}/git/refs: a new branch or tag. An existing
// ref is 422 "Reference already exists"; GitHub never overwrites one here.
func createRef(c *call) reply {
	const docs = "/git/refs#create-a-reference"
	if !c.mayWrite() {
		return c.writeRefused(docs, "contents=write")
	}
	var in struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON", docs)
	}
	name, ok := strings.CutPrefix(in.Ref, "refs/")
	if !ok || strings.Count(in.Ref, "/") < 2 || path.Clean(name) != name {
		return gitUnprocessable("Reference name must start with 'refs/' and have at least two slashes", docs)
	}
	refs, short, ok := c.repo.refTarget(name)
	if !ok {
		return gitUnprocessable("Reference name must start with 'refs/' and have at least two slashes", docs)
	}
	if _, exists := refs[short]; exists {
		return gitUnprocessable("Reference already exists", docs)
	}
	if !c.repo.objectExists(in.SHA) {
		return gitUnprocessable("Object does not exist", docs)
	}
	refs[short] = in.SHA
	rep := reply{status: http.StatusCreated, body: c.refJSON(name, in.SHA)}
	rep.header = http.Header{"Location": {c.repoURL("/git/refs/%s", name)}}
	return rep
}

// updateRef answers PATCH /repos/{owner}/{repo}/git/refs/{ref}: move an existing branch or
// tag. Without force the new commit must descend from the current one, else 422 "Update is
// not a fast forward", so a stale writer cannot drop commits it never saw.
func updateRef(c *call) reply {
	const docs = "/git/refs#update-a-reference"
	if !c.mayWrite() {
		return c.writeRefused(docs, "contents=write")
	}
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON", docs)
	}
	name := strings.TrimPrefix(c.r.PathValue("ref"), "refs/")
	refs, short, ok := c.repo.refTarget(name)
	if !ok {
		return gitUnprocessable("Reference does not exist", docs)
	}
	cur, exists := refs[short]
	if !exists {
		return gitUnprocessable("Reference does not exist", docs)
	}
	if !c.repo.objectExists(in.SHA) {
		return gitUnprocessable("Object does not exist", docs)
	}
	if !in.Force && !c.repo.ancestors(in.SHA)[cur] {
		return gitUnprocessable("Update is not a fast forward", docs)
	}
	refs[short] = in.SHA
	return okJSON(c.refJSON(name, in.SHA))
}
