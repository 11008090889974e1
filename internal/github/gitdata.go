package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// ErrNotFastForward is wrapped by UpdateBranch's error when GitHub refused to move a
// branch without force because the new commit does not descend from its head.
var ErrNotFastForward = errors.New("not a fast forward")

// gitObjectJSON is the {type, sha} a ref or a tag object points at.
type gitObjectJSON struct {
	Type string `json:"type"`
	SHA  string `json:"sha"`
}

// getRef asks GET /repos/{owner}/{repo}/git/ref/{ref} for one exact ref ("heads/<b>" or
// "tags/<t>"); the slashes of a name such as heads/automation/model-versions stay path
// separators, as GitHub expects, and each segment is escaped.
func (c *Client) getRef(ctx context.Context, owner, repo, ref string) (gitObjectJSON, error) {
	var out struct {
		Object gitObjectJSON `json:"object"`
	}
	_, err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "git/ref/"+segs(ref)), nil, nil, &out)
	return out.Object, err
}

// BranchHead returns the commit a branch points at; found is false when the branch does
// not exist.
func (c *Client) BranchHead(ctx context.Context, owner, repo, branch string) (sha string, found bool, err error) {
	obj, err := c.getRef(ctx, owner, repo, "heads/"+branch)
	if isNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("github: branch %s of %s/%s: %w", branch, owner, repo, apiErr(err))
	}
	if obj.Type != "commit" {
		return "", false, fmt.Errorf("github: branch %s of %s/%s points at a %s, not a commit", branch, owner, repo, obj.Type)
	}
	return obj.SHA, true, nil
}

// CommitTree returns the tree SHA of a commit, the base a new tree is built on.
func (c *Client) CommitTree(ctx context.Context, owner, repo, sha string) (string, error) {
	var commit struct {
		Tree struct {
			SHA string `json:"sha"`
		} `json:"tree"`
	}
	_, err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "git/commits/"+seg(sha)), nil, nil, &commit)
	if err != nil {
		return "", fmt.Errorf("github: commit %s of %s/%s: %w", sha, owner, repo, apiErr(err))
	}
	tree := commit.Tree.SHA
	if tree == "" {
		return "", fmt.Errorf("github: commit %s of %s/%s has no tree in GitHub's answer", sha, owner, repo)
	}
	return tree, nil
}

// TreeChange is one path of a new tree: a regular file (mode 100644) with Content, or,
// with Delete, the path removed.
type TreeChange struct {
	Path    string
	Content []byte
	Delete  bool
}

// treeFileJSON is a file entry of a tree to create, with its content inline.
type treeFileJSON struct {
	Path    string `json:"path"`
	Mode    string `json:"mode"`
	Type    string `json:"type"`
	Content string `json:"content"`
}

// treeDeletionJSON removes a path from the base tree: GitHub's API says so with a path
// whose "sha" is null, hence no omitempty.
type treeDeletionJSON struct {
	Path string  `json:"path"`
	SHA  *string `json:"sha"`
}

// shaJSON is the {"sha": …} of a created object.
type shaJSON struct {
	SHA string `json:"sha"`
}

// CreateTree writes a tree that is baseTree with the changes applied and returns its SHA.
// Content travels inline, so it must be UTF-8 text (binary files need the blobs API).
func (c *Client) CreateTree(ctx context.Context, owner, repo, baseTree string, changes []TreeChange) (string, error) {
	// Never nil: GitHub wants "tree": [] for no changes, not null.
	entries := make([]any, 0, len(changes))
	for _, ch := range changes {
		if ch.Path == "" || strings.HasPrefix(ch.Path, "/") {
			return "", fmt.Errorf("github: tree for %s/%s: path %q must be relative to the repository root", owner, repo, ch.Path)
		}
		if ch.Delete {
			entries = append(entries, treeDeletionJSON{Path: ch.Path})
			continue
		}
		if !utf8.Valid(ch.Content) {
			return "", fmt.Errorf("github: tree for %s/%s: %s is not UTF-8 text, which inline tree content must be", owner, repo, ch.Path)
		}
		entries = append(entries, treeFileJSON{Path: ch.Path, Mode: "100644", Type: "blob", Content: string(ch.Content)})
	}
	in := struct {
		BaseTree string `json:"base_tree,omitempty"`
		Tree     []any  `json:"tree"`
	}{baseTree, entries}
	var tree shaJSON
	if _, err := c.do(ctx, http.MethodPost, repoPath(owner, repo, "git/trees"), nil, in, &tree); err != nil {
		return "", fmt.Errorf("github: create tree on %s in %s/%s: %w", baseTree, owner, repo, apiErr(err))
	}
	return tree.SHA, nil
}

// CreateCommit writes a commit of tree with the given parents and returns its SHA. It
// moves no branch; author and committer are the token's user, as GitHub fills them in.
func (c *Client) CreateCommit(ctx context.Context, owner, repo, message, tree string, parents []string) (string, error) {
	in := struct {
		Message string   `json:"message"`
		Tree    string   `json:"tree"`
		Parents []string `json:"parents,omitempty"` // none: a root commit
	}{message, tree, parents}
	var created shaJSON
	if _, err := c.do(ctx, http.MethodPost, repoPath(owner, repo, "git/commits"), nil, in, &created); err != nil {
		return "", fmt.Errorf("github: create commit of tree %s in %s/%s: %w", tree, owner, repo, apiErr(err))
	}
	return created.SHA, nil
}

// errNoSHA refuses a ref write without a commit before sending it: GitHub would only
// answer 422.
var errNoSHA = errors.New("sha must be provided")

// CreateBranch creates refs/heads/<branch> at sha. An existing branch is an error wrapping
// ErrAlreadyExists: GitHub never moves a branch through this call.
func (c *Client) CreateBranch(ctx context.Context, owner, repo, branch, sha string) error {
	var err error
	if sha == "" {
		err = errNoSHA
	} else {
		in := struct {
			Ref string `json:"ref"`
			SHA string `json:"sha"`
		}{"refs/heads/" + branch, sha}
		_, err = c.do(ctx, http.MethodPost, repoPath(owner, repo, "git/refs"), nil, in, nil)
	}
	if err != nil {
		if messageIs(err, http.StatusUnprocessableEntity, "Reference already exists") {
			err = fmt.Errorf("%w: %w", ErrAlreadyExists, err)
		}
		return fmt.Errorf("github: create branch %s at %s in %s/%s: %w", branch, sha, owner, repo, apiErr(err))
	}
	return nil
}

// UpdateBranch moves an existing branch to sha. Without force GitHub accepts only a fast
// forward and the error wraps ErrNotFastForward otherwise; a missing branch wraps
// ErrNotFound. Force discards the branch's own commits: use it only on a branch that
// automation owns and rebuilds.
func (c *Client) UpdateBranch(ctx context.Context, owner, repo, branch, sha string, force bool) error {
	var err error
	if sha == "" {
		err = errNoSHA
	} else {
		in := struct {
			SHA   string `json:"sha"`
			Force bool   `json:"force"`
		}{sha, force}
		_, err = c.do(ctx, http.MethodPatch, repoPath(owner, repo, "git/refs/"+segs("heads/"+branch)), nil, in, nil)
	}
	if err != nil {
		switch {
		case messageIs(err, http.StatusUnprocessableEntity, "Update is not a fast forward"):
			err = fmt.Errorf("%w: %w", ErrNotFastForward, err)
		case messageIs(err, http.StatusUnprocessableEntity, "Reference does not exist"), isNotFound(err):
			err = fmt.Errorf("%w: %w", ErrNotFound, err)
		}
		return fmt.Errorf("github: move branch %s to %s in %s/%s: %w", branch, sha, owner, repo, apiErr(err))
	}
	return nil
}

// Comparison is what a three-dot compare says about head relative to base.
type Comparison struct {
	// Status is identical, ahead, behind or diverged.
	Status   string
	AheadBy  int
	BehindBy int
	// Files are the paths that differ between the merge base and head (GitHub lists up to
	// 300), with the blob SHA of each at head.
	Files []ChangedFile
}

// ChangedFile is one path of a comparison.
type ChangedFile struct {
	Path string
	// Status is added, removed, modified, renamed, copied, changed or unchanged.
	Status string
	// SHA is the blob SHA of the file at head, comparable with a locally computed Git blob
	// SHA of the content wanted there.
	SHA string
}

// CompareFiles compares base...head (branches, tags or SHAs) once. found is false when
// either side does not exist or the two have no common history (GitHub answers 404 to
// both). Without paging parameters GitHub includes the changed files in the answer.
func (c *Client) CompareFiles(ctx context.Context, owner, repo, base, head string) (Comparison, bool, error) {
	cmp, err := c.compare(ctx, owner, repo, base, head, nil)
	if isNotFound(err) {
		return Comparison{}, false, nil
	}
	if err != nil {
		return Comparison{}, false, fmt.Errorf("github: compare %s...%s of %s/%s: %w", base, head, owner, repo, apiErr(err))
	}
	out := Comparison{Status: cmp.Status, AheadBy: cmp.AheadBy}
	if cmp.BehindBy != nil {
		out.BehindBy = *cmp.BehindBy
	}
	for _, f := range cmp.Files {
		out.Files = append(out.Files, ChangedFile{Path: f.Filename, Status: f.Status, SHA: f.SHA})
	}
	return out, true, nil
}
