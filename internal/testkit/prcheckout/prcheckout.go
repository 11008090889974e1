// Package prcheckout makes, with the git CLI, a checkout shaped as actions/checkout leaves
// one for a pull_request event with fetch-depth: 0 (src/ref-helper.ts,
// getRefSpecForAllHistory and getCheckoutInfo): origin's branches fetched to
// refs/remotes/origin/*, its tags to refs/tags/*, the forge's test merge of the pull
// request fetched by commit to refs/remotes/pull/<n>/merge and checked out detached. No
// local branch exists, so `main` names nothing there while `origin/main` does.
package prcheckout

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Options describe the history behind the checkout.
type Options struct {
	// Tree is a folder whose files (its .git left out) are main's first commit.
	Tree string
	// Change is the pull request's one commit on top of that: path to contents, "" removes.
	Change map[string]string
	// MainLater, when set, is a commit merged into main after the pull request branched,
	// so the merge base is not main's head: a diff against the wrong commit shows it.
	MainLater map[string]string
	// Number is the pull request's number (1 when zero).
	Number int
}

// Checkout is the clone and the commits of its history.
type Checkout struct {
	Dir   string // the working tree; HEAD is detached at Merge
	Base  string // origin's main, the merge commit's first parent
	Head  string // the pull request's head
	Merge string // refs/pull/<n>/merge on the forge
}

// New builds the origin repository and the checkout in temporary folders of t.
func New(t testing.TB, o Options) Checkout {
	t.Helper()
	if o.Number == 0 {
		o.Number = 1
	}
	origin := filepath.Join(t.TempDir(), "origin")
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		// The machine's configuration must not shape the history; a fixed identity and time
		// give the same commits on every run.
		cmd.Env = append(os.Environ(),
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=Octo Cat", "GIT_AUTHOR_EMAIL=octocat@example.org", "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z",
			"GIT_COMMITTER_NAME=Octo Cat", "GIT_COMMITTER_EMAIL=octocat@example.org", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if err := os.MkdirAll(origin, 0o755); err != nil {
		t.Fatal(err)
	}
	git(origin, "init", "-q", "--initial-branch=main")
	if o.Tree != "" {
		copyTree(t, o.Tree, origin)
	}
	commit := func(message string, files map[string]string) string {
		t.Helper()
		write(t, origin, files)
		git(origin, "add", "-A")
		git(origin, "commit", "-q", "--allow-empty", "-m", message)
		return git(origin, "rev-parse", "HEAD")
	}
	commit("The base", nil)
	git(origin, "checkout", "-q", "-b", "feature")
	c := Checkout{Head: commit("The pull request", o.Change)}
	git(origin, "checkout", "-q", "main")
	c.Base = git(origin, "rev-parse", "HEAD")
	if o.MainLater != nil {
		c.Base = commit("Merged into main after the pull request branched", o.MainLater)
	}
	// The forge's test merge, with the message actions/checkout's checkCommitInfo expects.
	git(origin, "checkout", "-q", "--detach", "main")
	git(origin, "merge", "-q", "--no-ff", "-m", fmt.Sprintf("Merge %s into %s", c.Head, c.Base), "feature")
	c.Merge = git(origin, "rev-parse", "HEAD")
	git(origin, "checkout", "-q", "main")
	git(origin, "update-ref", fmt.Sprintf("refs/pull/%d/head", o.Number), c.Head)
	git(origin, "update-ref", fmt.Sprintf("refs/pull/%d/merge", o.Number), c.Merge)
	git(origin, "config", "uploadpack.allowAnySHA1InWant", "true")

	// actions/checkout: git init, remote add, one fetch of every branch and tag and of the
	// merge commit by its SHA, then a forced checkout of the fetched merge ref.
	c.Dir = filepath.Join(t.TempDir(), "checkout")
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(c.Dir, "init", "-q")
	git(c.Dir, "remote", "add", "origin", origin)
	merge := fmt.Sprintf("refs/remotes/pull/%d/merge", o.Number)
	git(c.Dir, "-c", "protocol.version=2", "fetch", "--prune", "--no-recurse-submodules", "origin",
		"+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*", "+"+c.Merge+":"+merge)
	git(c.Dir, "checkout", "-q", "--force", merge)
	return c
}

// copyTree copies the files of src, without .git, into dst.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, info.Mode().Perm()|0o200)
	})
	if err != nil {
		t.Fatalf("copying %s: %v", src, err)
	}
}

// write applies files to dir: contents by slash-separated path, "" removes the file.
func write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		target := filepath.Join(dir, filepath.FromSlash(p))
		if c == "" {
			if err := os.Remove(target); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
