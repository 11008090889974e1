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
	return f, nil
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

// RepinFiles rewrites every pin of the pinned files to tag at its commit and returns the
// files it changed. The tag must exist: a pin names a release, never a commit to come.
func (r Repo) RepinFiles(tag string) ([]string, error) {
	commit, err := r.Commit("refs/tags/" + tag)
	if err != nil {
		return nil, fmt.Errorf("the release %s is not tagged: tag it first (shipyard-release tag %s): %w", tag, tag, err)
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
