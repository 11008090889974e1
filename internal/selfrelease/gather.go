package selfrelease

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Repo is a git repository on disk: Shipyard's own clone.
type Repo struct{ Dir string }

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

// file reads path at commit; Found is false when the commit has no such file.
func (r Repo) file(commit, path string) (File, error) {
	if _, err := r.Git("cat-file", "-e", commit+":"+path); err != nil {
		return File{}, nil
	}
	out, err := r.Git("show", commit+":"+path)
	if err != nil {
		return File{}, err
	}
	return File{Found: true, Content: []byte(out)}, nil
}

// Gather reads the facts of tagging commit (a ref) as tag from the repository: the files
// at the commit, the tags that exist, and the CI record on the commit.
func (r Repo) Gather(tag, ref string) (Facts, error) {
	commit, err := r.Commit(ref)
	if err != nil {
		return Facts{}, err
	}
	f := Facts{Tag: tag, Commit: commit}
	if existing, err := r.Commit("refs/tags/" + tag); err == nil {
		f.TagCommit = existing
	}
	tags, err := r.Git("tag", "--list", "v*")
	if err != nil {
		return Facts{}, err
	}
	f.Released = strings.Fields(tags)
	if f.Changelog, err = r.file(commit, ChangelogFile); err != nil {
		return Facts{}, err
	}
	if f.Notes, err = r.file(commit, NotesPath(strings.TrimPrefix(tag, "v"))); err != nil {
		return Facts{}, err
	}
	if note, err := r.Git("notes", "--ref", CINotesRef, "show", commit); err == nil {
		f.CI = CIRecord{Found: true, Note: strings.TrimSpace(note)}
	}
	pins, err := r.PinsAt(commit)
	if err != nil {
		return Facts{}, err
	}
	// The release's pins are read as if its tag were already on the commit to tag.
	f.Pins, err = r.ReleaseOf(pins, strings.TrimPrefix(tag, "v"), commit)
	return f, err
}

// Clean reports whether the working tree and the index hold no change and no untracked
// file: only then is what CI ran the commit itself.
func (r Repo) Clean() (bool, error) {
	out, err := r.Git("status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(out) == "", nil
}

// RecordCI notes on commit that CI passed on it.
func (r Repo) RecordCI(commit, note string) error {
	_, err := r.Git("notes", "--ref", CINotesRef, "add", "--force", "--message", note, commit)
	return err
}

// RepinFiles rewrites every pin of the pinned files to the release tag at ref's commit
// (HEAD when empty) and returns the files it changed. The tag need not exist yet: the
// release's own re-pin commit names the commit before it, whose module it is.
func (r Repo) RepinFiles(tag, ref string) ([]string, error) {
	if ref == "" {
		ref = "HEAD"
	}
	commit, err := r.Commit(ref)
	if err != nil {
		return nil, err
	}
	files, err := Files(r.Dir)
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, f := range files {
		path := filepath.Join(r.Dir, filepath.FromSlash(f))
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		out, _, err := Repin(b, commit, tag)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(out, b) {
			continue
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			return nil, err
		}
		changed = append(changed, f)
	}
	return changed, nil
}

// ReleaseOf reads from git what the rule of the pins needs about the release pins name:
// its tag's commit, and the files changed from the pinned commit to it. preparing is the
// version the CHANGELOG prepares. A tag named on its commit of choice (at, for a tag not
// created yet) is read as if it were there.
func (r Repo) ReleaseOf(pins []Pin, preparing, at string) (PinnedRelease, error) {
	rel := PinnedRelease{Pins: pins, Preparing: preparing}
	var commit, tag string
	for _, p := range pins {
		if p.Commit != "" {
			commit, tag = p.Commit, p.Tag
			break
		}
	}
	if commit == "" || tag == "" {
		return rel, nil
	}
	rel.TagCommit = at
	if rel.TagCommit == "" {
		if c, err := r.Commit("refs/tags/" + tag); err == nil {
			rel.TagCommit = c
		}
	}
	if rel.TagCommit == "" || rel.TagCommit == commit {
		return rel, nil
	}
	if _, err := r.Git("merge-base", "--is-ancestor", commit, rel.TagCommit); err != nil {
		return rel, nil // not an ancestor (or unknown): ChangedKnown stays false
	}
	out, err := r.Git("diff", "--name-only", commit, rel.TagCommit)
	if err != nil {
		return rel, err
	}
	rel.Changed, rel.ChangedKnown = strings.Fields(out), true
	return rel, nil
}

// PinsAt reads the pins of the pinned files as they are at commit.
func (r Repo) PinsAt(commit string) ([]Pin, error) {
	list, err := r.Git("ls-tree", "-r", "--name-only", commit)
	if err != nil {
		return nil, err
	}
	var pins []Pin
	for _, f := range strings.Fields(list) {
		if !IsPinnedFile(f) {
			continue
		}
		content, err := r.Git("show", commit+":"+f)
		if err != nil {
			return nil, err
		}
		pins = append(pins, FindPins(f, []byte(content))...)
	}
	return pins, nil
}
