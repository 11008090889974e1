package githubclient

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	gh "github.com/google/go-github/v84/github"

	"dagger/shipyard/internal/github"
)

// BranchHead returns the commit a branch points at; found is false when the branch does
// not exist. A name git refuses is refused before any request (checkBranch).
func (c *Client) BranchHead(ctx context.Context, owner, repo, branch string) (sha string, found bool, err error) {
	if err := checkBranch(owner, repo, branch); err != nil {
		return "", false, err
	}
	ref, resp, err := c.gh.Git.GetRef(ctx, seg(owner), seg(repo), "heads/"+branch)
	err = apiErr(resp, err)
	if isNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("github: branch %s of %s/%s: %w", branch, owner, repo, err)
	}
	if t := ref.GetObject().GetType(); t != "commit" {
		return "", false, fmt.Errorf("github: branch %s of %s/%s points at a %s, not a commit", branch, owner, repo, t)
	}
	return ref.GetObject().GetSHA(), true, nil
}

// checkBranch refuses a branch name git refuses (github.CheckBranch) before it becomes
// heads/<branch> in a refs API path or body: go-github resolves the path's dot segments,
// so ../tags/v1 would read or move the tag v1 with the token.
func checkBranch(owner, repo, branch string) error {
	if err := github.CheckBranch(branch); err != nil {
		return fmt.Errorf("github: %s/%s: %w: %w", owner, repo, github.ErrRefused, err)
	}
	return nil
}

// CommitTree returns the tree SHA of a commit, the base a new tree is built on.
func (c *Client) CommitTree(ctx context.Context, owner, repo, sha string) (string, error) {
	commit, err := c.Commit(ctx, owner, repo, sha)
	if err != nil {
		return "", err
	}
	return commit.Tree, nil
}

// Commit reads a commit object through the Git database API (a full SHA).
func (c *Client) Commit(ctx context.Context, owner, repo, sha string) (github.GitCommit, error) {
	commit, resp, err := c.gh.Git.GetCommit(ctx, seg(owner), seg(repo), seg(sha))
	if err = apiErr(resp, err); err != nil {
		return github.GitCommit{}, fmt.Errorf("github: commit %s of %s/%s: %w", sha, owner, repo, err)
	}
	out := github.GitCommit{SHA: commit.GetSHA(), Message: commit.GetMessage(), Tree: commit.GetTree().GetSHA()}
	if out.Tree == "" {
		return github.GitCommit{}, fmt.Errorf("github: commit %s of %s/%s has no tree in GitHub's answer", sha, owner, repo)
	}
	for _, p := range commit.Parents {
		out.Parents = append(out.Parents, p.GetSHA())
	}
	return out, nil
}

// CreateTree writes a tree that is baseTree with the changes applied and returns its SHA.
// Content travels inline, so it must be UTF-8 text (binary files need the blobs API).
func (c *Client) CreateTree(ctx context.Context, owner, repo, baseTree string, changes []github.TreeChange) (string, error) {
	// Never nil: GitHub wants "tree": [] for no changes, not null.
	entries := make([]*gh.TreeEntry, 0, len(changes))
	for _, ch := range changes {
		if ch.Path == "" || strings.HasPrefix(ch.Path, "/") {
			return "", fmt.Errorf("github: tree for %s/%s: path %q must be relative to the repository root", owner, repo, ch.Path)
		}
		e := &gh.TreeEntry{Path: gh.Ptr(ch.Path)}
		if !ch.Delete {
			if !utf8.Valid(ch.Content) {
				return "", fmt.Errorf("github: tree for %s/%s: %s is not UTF-8 text, which inline tree content must be", owner, repo, ch.Path)
			}
			e.Mode, e.Type, e.Content = gh.Ptr("100644"), gh.Ptr("blob"), gh.Ptr(string(ch.Content))
		}
		// A Delete entry has neither SHA nor Content: go-github sends "sha": null for it.
		entries = append(entries, e)
	}
	tree, resp, err := c.gh.Git.CreateTree(ctx, seg(owner), seg(repo), baseTree, entries)
	if err = apiErr(resp, err); err != nil {
		return "", fmt.Errorf("github: create tree on %s in %s/%s: %w", baseTree, owner, repo, err)
	}
	return tree.GetSHA(), nil
}

// CreateCommit writes a commit of tree with the given parents and returns its SHA. It
// moves no branch; author and committer are the token's user, as GitHub fills them in.
func (c *Client) CreateCommit(ctx context.Context, owner, repo, message, tree string, parents []string) (string, error) {
	commit := gh.Commit{Message: gh.Ptr(message), Tree: &gh.Tree{SHA: gh.Ptr(tree)}}
	for _, p := range parents {
		commit.Parents = append(commit.Parents, &gh.Commit{SHA: gh.Ptr(p)})
	}
	created, resp, err := c.gh.Git.CreateCommit(ctx, seg(owner), seg(repo), commit, nil)
	if err = apiErr(resp, err); err != nil {
		return "", fmt.Errorf("github: create commit of tree %s in %s/%s: %w", tree, owner, repo, err)
	}
	return created.GetSHA(), nil
}

// CreateBranch creates refs/heads/<branch> at sha. An existing branch is an error wrapping
// ErrAlreadyExists: GitHub never moves a branch through this call. A name git refuses is
// refused before any request (checkBranch).
func (c *Client) CreateBranch(ctx context.Context, owner, repo, branch, sha string) error {
	if err := checkBranch(owner, repo, branch); err != nil {
		return err
	}
	// go-github refuses an empty sha before sending: GitHub would only answer 422.
	_, resp, err := c.gh.Git.CreateRef(ctx, seg(owner), seg(repo), gh.CreateRef{Ref: "refs/heads/" + branch, SHA: sha})
	if err = apiErr(resp, err); err != nil {
		if github.MessageIs(err, http.StatusUnprocessableEntity, "Reference already exists") {
			err = fmt.Errorf("%w: %w", github.ErrAlreadyExists, err)
		}
		return fmt.Errorf("github: create branch %s at %s in %s/%s: %w", branch, sha, owner, repo, err)
	}
	return nil
}

// UpdateBranch moves an existing branch to sha. Without force GitHub accepts only a fast
// forward and the error wraps ErrNotFastForward otherwise; a missing branch wraps
// ErrNotFound. Force discards the branch's own commits: use it only on a branch that
// automation owns and rebuilds. A name git refuses is refused before any request
// (checkBranch).
func (c *Client) UpdateBranch(ctx context.Context, owner, repo, branch, sha string, force bool) error {
	if err := checkBranch(owner, repo, branch); err != nil {
		return err
	}
	// The compare-and-swap is GitHub's: without force it moves the branch only when sha
	// descends from the head it has now, so a concurrent push is never lost.
	_, resp, err := c.gh.Git.UpdateRef(ctx, seg(owner), seg(repo), "heads/"+branch, gh.UpdateRef{SHA: sha, Force: gh.Ptr(force)})
	if err = apiErr(resp, err); err != nil {
		switch {
		case github.MessageIs(err, http.StatusUnprocessableEntity, "Update is not a fast forward"):
			err = fmt.Errorf("%w: %w", github.ErrNotFastForward, err)
		case github.MessageIs(err, http.StatusUnprocessableEntity, "Reference does not exist"), isNotFound(err):
			err = fmt.Errorf("%w: %w", github.ErrNotFound, err)
		}
		return fmt.Errorf("github: move branch %s to %s in %s/%s: %w", branch, sha, owner, repo, err)
	}
	return nil
}

// CompareFiles compares base...head (branches, tags or SHAs) once. found is false when
// either side does not exist or the two have no common history (GitHub answers 404 to
// both). Without paging parameters GitHub includes the changed files in the answer.
func (c *Client) CompareFiles(ctx context.Context, owner, repo, base, head string) (github.Comparison, bool, error) {
	cmp, resp, err := c.gh.Repositories.CompareCommits(ctx, seg(owner), seg(repo), base, head, nil)
	err = apiErr(resp, err)
	if isNotFound(err) {
		return github.Comparison{}, false, nil
	}
	if err != nil {
		return github.Comparison{}, false, fmt.Errorf("github: compare %s...%s of %s/%s: %w", base, head, owner, repo, err)
	}
	out := github.Comparison{Status: cmp.GetStatus(), AheadBy: cmp.GetAheadBy(), BehindBy: cmp.GetBehindBy()}
	for _, f := range cmp.Files {
		out.Files = append(out.Files, github.ChangedFile{Path: f.GetFilename(), Status: f.GetStatus(), SHA: f.GetSHA()})
	}
	return out, true, nil
}
