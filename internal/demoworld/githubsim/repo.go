package githubsim

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Repo is a simulated repository: a commit DAG with file trees, branches, tags, workflow
// runs and releases. Its methods seed state for tests and fail the test on misuse.
type Repo struct {
	s             *Server
	owner, name   string
	id            int64
	defaultBranch string

	commits    map[string]*commit
	branches   map[string]string // name → head sha
	tags       map[string]string // name → sha of a tag object (annotated) or a commit (lightweight)
	tagObjects map[string]*tagObject
	workflows  map[string]*workflow // file name → workflow
	runs       []*WorkflowRun
	releases   []*Release
	settings   repoSettings // rulesets, environments, protection, secrets, variables (settings.go)

	attestations []*attestation // uploaded Sigstore bundles (attestations.go)
}

type commit struct {
	sha     string
	parents []string
	message string
	date    time.Time
	tree    map[string][]byte
}

// AddRepo creates an empty repository whose default branch is main.
func (s *Server) AddRepo(owner, name string) *Repo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addRepoLocked(owner, name)
}

func (s *Server) addRepoLocked(owner, name string) *Repo {
	r := &Repo{
		s: s, owner: owner, name: name, id: s.newID(), defaultBranch: "main",
		commits:    map[string]*commit{},
		branches:   map[string]string{},
		tags:       map[string]string{},
		tagObjects: map[string]*tagObject{},
		workflows:  map[string]*workflow{},
	}
	s.repos[strings.ToLower(owner+"/"+name)] = r
	return r
}

// FullName is "owner/name".
func (r *Repo) FullName() string { return r.owner + "/" + r.name }

// fatalf fails the test that seeds the repository.
func (r *Repo) fatalf(format string, args ...any) {
	r.s.tb.Helper()
	r.s.tb.Fatalf("githubsim %s: "+format, append([]any{r.FullName()}, args...)...)
}

// AddCommit records a commit whose tree is its first parent's tree with files added or
// replaced, and returns its SHA. Parents must exist.
func (r *Repo) AddCommit(message string, parents []string, files map[string]string) string {
	r.s.tb.Helper()
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.addCommitLocked(message, parents, files)
}

// ImportCommit records a commit of a real git repository under that repository's SHA, with
// AddCommit's tree rule, so a test can serve one history both over git (for Dagger's git
// API) and over the REST API. Parents must exist; the SHA must be new.
func (r *Repo) ImportCommit(sha, message string, parents []string, files map[string]string) {
	r.s.tb.Helper()
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if _, dup := r.commits[sha]; dup || len(sha) != 40 {
		r.fatalf("ImportCommit %q: the SHA %q is taken or not 40 hex digits", message, sha)
		return
	}
	r.commitLocked(sha, message, parents, files)
}

func (r *Repo) addCommitLocked(message string, parents []string, files map[string]string) string {
	r.s.tb.Helper()
	return r.commitLocked("", message, parents, files)
}

// commitLocked records a commit; an empty sha is computed from the content.
func (r *Repo) commitLocked(sha, message string, parents []string, files map[string]string) string {
	r.s.tb.Helper()
	tree := map[string][]byte{}
	for i, p := range parents {
		pc, ok := r.commits[p]
		if !ok {
			r.fatalf("AddCommit %q: unknown parent %s", message, p)
			return ""
		}
		if i == 0 {
			tree = maps.Clone(pc.tree)
		}
	}
	for path, content := range files {
		tree[strings.TrimPrefix(path, "/")] = []byte(content)
	}
	c := &commit{parents: append([]string(nil), parents...), message: message, date: r.s.stamp(), tree: tree}
	if sha != "" {
		c.sha = sha
		r.commits[sha] = c
		return sha
	}
	// Hash like git would (content and ancestry), plus a sequence number so that two
	// identical commits still get distinct SHAs.
	h := sha1.New()
	fmt.Fprintf(h, "commit %d\n%s\n%s\n", r.s.newID(), strings.Join(parents, " "), message)
	paths := make([]string, 0, len(tree))
	for p := range tree {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(h, "%s %s\n", p, blobSHA(tree[p]))
	}
	c.sha = hex.EncodeToString(h.Sum(nil))
	r.commits[c.sha] = c
	return c.sha
}

// CommitOnBranch adds a commit on top of branch (a root commit if the branch does not
// exist yet), moves the branch to it and returns its SHA.
func (r *Repo) CommitOnBranch(branch, message string, files map[string]string) string {
	r.s.tb.Helper()
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	var parents []string
	if head, ok := r.branches[branch]; ok {
		parents = []string{head}
	}
	sha := r.addCommitLocked(message, parents, files)
	r.branches[branch] = sha
	return sha
}

// SetBranch points a branch at a commit (creating or moving it).
func (r *Repo) SetBranch(name, sha string) {
	r.s.tb.Helper()
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if _, ok := r.commits[sha]; !ok {
		r.fatalf("SetBranch %s: unknown commit %s", name, sha)
		return
	}
	r.branches[name] = sha
}

// Branch returns the head of a branch ("" if it does not exist).
func (r *Repo) Branch(name string) string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.branches[name]
}

var hexSHA = regexp.MustCompile(`^[0-9a-f]{4,40}$`)

// resolve turns a ref as GitHub accepts it (branch, tag, heads/…, tags/…, refs/…, or a
// full or abbreviated commit SHA) into a commit SHA. A bare name that is both a tag and a
// branch is the tag, as in git's rev-parse order (refs/tags before refs/heads): a tag named
// main shadows branch main.
func (r *Repo) resolve(ref string) (string, bool) {
	ref = strings.TrimPrefix(ref, "refs/")
	if b, ok := strings.CutPrefix(ref, "heads/"); ok {
		sha, found := r.branches[b]
		return sha, found
	}
	if t, ok := strings.CutPrefix(ref, "tags/"); ok {
		return r.peelTag(t)
	}
	if sha, ok := r.peelTag(ref); ok {
		return sha, true
	}
	if sha, ok := r.branches[ref]; ok {
		return sha, true
	}
	if !hexSHA.MatchString(ref) {
		return "", false
	}
	if _, ok := r.commits[ref]; ok {
		return ref, true
	}
	var match string
	for sha := range r.commits {
		if strings.HasPrefix(sha, ref) {
			if match != "" {
				return "", false // ambiguous
			}
			match = sha
		}
	}
	return match, match != ""
}

// peelTag follows a tag (through tag objects) to its commit.
func (r *Repo) peelTag(name string) (string, bool) {
	sha, ok := r.tags[name]
	for ok {
		obj, isTag := r.tagObjects[sha]
		if !isTag {
			break
		}
		sha = obj.target
	}
	if _, isCommit := r.commits[sha]; !ok || !isCommit {
		return "", false
	}
	return sha, true
}

// ancestors returns every commit reachable from the given ones, themselves included.
func (r *Repo) ancestors(shas ...string) map[string]bool {
	seen := map[string]bool{}
	stack := append([]string(nil), shas...)
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[cur] {
			continue
		}
		seen[cur] = true
		if c, ok := r.commits[cur]; ok {
			stack = append(stack, c.parents...)
		}
	}
	return seen
}

// IsAncestor reports whether ancestor is reachable from descendant (or equal to it), for
// tests that check the simulator's answers against the DAG.
func (r *Repo) IsAncestor(ancestor, descendant string) bool {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.ancestors(descendant)[ancestor]
}

// blobSHA is git's object id of a file's content.
func blobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}
