package selfrelease

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Repo is a git repository on disk: Shipyard's own clone.
type Repo struct{ Dir string }

// MainRef is reviewed main as the clone sees it once fetched: the gates read it only
// after FetchMain, never a local branch a maintainer could have moved.
const MainRef = "refs/remotes/origin/main"

// Git runs git in the repository and returns its standard output.
func (r Repo) Git(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// Commit resolves ref to its full commit SHA.
func (r Repo) Commit(ref string) (string, error) {
	out, err := r.Git("rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s is not a commit: %w", ref, err)
	}
	return strings.TrimSpace(out), nil
}

// FetchMain fetches main from origin into MainRef, and the tags: the gates judge what
// the forge holds now.
func (r Repo) FetchMain() error {
	if _, err := r.Git("fetch", "--quiet", "--tags", "origin", "+refs/heads/main:"+MainRef); err != nil {
		return fmt.Errorf("fetching main from origin: %w", err)
	}
	return nil
}

// IsAncestor reports whether a is an ancestor of (or is) b.
func (r Repo) IsAncestor(a, b string) (bool, error) {
	_, err := r.Git("merge-base", "--is-ancestor", a, b)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return false, nil
	}
	return false, err
}

// file reads path at commit, or in the working tree when commit is empty; Found is false
// when there is no such file.
func (r Repo) file(commit, path string) (File, error) {
	if commit == "" {
		b, err := os.ReadFile(filepath.Join(r.Dir, filepath.FromSlash(path)))
		if errors.Is(err, os.ErrNotExist) {
			return File{}, nil
		}
		return File{Found: err == nil, Content: b}, err
	}
	if _, err := r.Git("cat-file", "-e", commit+":"+path); err != nil {
		return File{}, nil
	}
	out, err := r.Git("show", commit+":"+path)
	if err != nil {
		return File{}, err
	}
	return File{Found: true, Content: []byte(out)}, nil
}

// Gather reads the facts of releasing tag from the repository, with main freshly
// fetched (FetchMain) beforehand: the changelog, pins and changes at head (a commit, or
// the working tree when empty), and the release commit the changelog names.
func (r Repo) Gather(tag, head string) (Facts, error) {
	f := Facts{Tag: tag, Main: MainFacts{Ref: strings.TrimPrefix(MainRef, "refs/remotes/")}}
	if head != "" {
		c, err := r.Commit(head)
		if err != nil {
			return Facts{}, err
		}
		f.Head = c
	}
	if existing, err := r.Commit("refs/tags/" + tag); err == nil {
		f.TagCommit = existing
	}
	tags, err := r.Git("tag", "--list", "v*")
	if err != nil {
		return Facts{}, err
	}
	f.Released = strings.Fields(tags)
	if f.Changelog, err = r.file(f.Head, ChangelogFile); err != nil {
		return Facts{}, err
	}
	version := strings.TrimPrefix(tag, "v")
	c, _ := ParseChangelog(f.Changelog.Content)
	if s, ok := c.Section(version); ok && s.Commit != "" {
		release, err := r.Commit(s.Commit)
		if err != nil {
			return Facts{}, fmt.Errorf("%s:%d names the release commit %s, which this clone lacks: %w", ChangelogFile, s.CommitLine, s.Commit, err)
		}
		f.Release = release
	}
	notesAt := f.Release
	if notesAt == "" {
		notesAt = f.Head
	}
	if f.Notes, err = r.file(notesAt, NotesPath(version)); err != nil {
		return Facts{}, err
	}
	if f.Pins, err = r.PinsAt(f.Head); err != nil {
		return Facts{}, err
	}
	if f.Release == "" {
		return f, nil
	}
	if f.Main, err = r.Main(f.Release, f.Head); err != nil {
		return Facts{}, err
	}
	f.Repin, err = r.Changes(f.Release, f.Head)
	return f, err
}

// Main reads where release and head (HEAD when empty) stand against the fetched main.
func (r Repo) Main(release, head string) (MainFacts, error) {
	m := MainFacts{Ref: strings.TrimPrefix(MainRef, "refs/remotes/")}
	at := head
	if at == "" {
		at = "HEAD"
	}
	var err error
	if m.ReleaseOnMain, err = r.IsAncestor(release, MainRef); err != nil {
		return m, err
	}
	if m.ReleaseBeforeHead, err = r.IsAncestor(release, at); err != nil {
		return m, err
	}
	out, err := r.Git("rev-list", "--abbrev-commit", MainRef+".."+at)
	if err != nil {
		return m, err
	}
	m.Unpushed = strings.Fields(out)
	return m, nil
}

// Changes lists the files changed from commit from to head (the working tree, untracked
// files included, when head is empty), with both contents.
func (r Repo) Changes(from, head string) ([]Change, error) {
	var names []string
	if head == "" {
		out, err := r.Git("diff", "--name-only", from, "--")
		if err != nil {
			return nil, err
		}
		untracked, err := r.Git("ls-files", "--others", "--exclude-standard")
		if err != nil {
			return nil, err
		}
		names = append(strings.Fields(out), strings.Fields(untracked)...)
	} else {
		out, err := r.Git("diff", "--name-only", from, head, "--")
		if err != nil {
			return nil, err
		}
		names = strings.Fields(out)
	}
	var changes []Change
	for _, n := range names {
		old, err := r.file(from, n)
		if err != nil {
			return nil, err
		}
		cur, err := r.file(head, n)
		if err != nil {
			return nil, err
		}
		changes = append(changes, Change{Path: n, Old: old, New: cur})
	}
	return changes, nil
}

// Clean reports whether the working tree and the index hold no change and no untracked
// file.
func (r Repo) Clean() (bool, error) {
	out, err := r.Git("status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(out) == "", nil
}

// RepinFiles rewrites every pin of the pinned files in the working tree to tag at
// release, and writes the release line of the tag's changelog section; it returns the
// files it changed.
func (r Repo) RepinFiles(tag, release string) ([]string, error) {
	files, err := Files(r.Dir)
	if err != nil {
		return nil, err
	}
	var changed []string
	write := func(f string, rewrite func([]byte) ([]byte, error)) error {
		path := filepath.Join(r.Dir, filepath.FromSlash(f))
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out, err := rewrite(b)
		if err != nil || bytes.Equal(out, b) {
			return err
		}
		changed = append(changed, f)
		return os.WriteFile(path, out, 0o644)
	}
	for _, f := range files {
		if err := write(f, func(b []byte) ([]byte, error) {
			out, _, err := Repin(b, release, tag)
			return out, err
		}); err != nil {
			return nil, err
		}
	}
	err = write(ChangelogFile, func(b []byte) ([]byte, error) {
		return SetReleaseLine(b, strings.TrimPrefix(tag, "v"), release)
	})
	return changed, err
}

// PinsAt reads the pins of the pinned files as they are at commit, or in the working
// tree when commit is empty.
func (r Repo) PinsAt(commit string) ([]Pin, error) {
	var list []string
	if commit == "" {
		files, err := Files(r.Dir)
		if err != nil {
			return nil, err
		}
		list = files
	} else {
		out, err := r.Git("ls-tree", "-r", "--name-only", commit)
		if err != nil {
			return nil, err
		}
		list = strings.Fields(out)
	}
	var pins []Pin
	for _, f := range list {
		if !IsPinnedFile(f) {
			continue
		}
		content, err := r.file(commit, f)
		if err != nil {
			return nil, err
		}
		pins = append(pins, FindPins(f, content.Content)...)
	}
	return pins, nil
}
