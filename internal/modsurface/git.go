package modsurface

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
)

// FromGit reads the module's root package as it is at ref (a commit, a tag or a branch) in
// the git repository at repoDir, with `git ls-tree` and `git show`: the surface a caller
// pinned to that ref gets, whatever the working tree holds. The history is in every clone,
// so a missing ref means a shallow or partial clone, and the error says how to fetch it.
func FromGit(repoDir, ref, mainType string) (Surface, error) {
	commit, err := ResolveCommit(repoDir, ref)
	if err != nil {
		return Surface{}, err
	}
	list, err := git(repoDir, "ls-tree", "--name-only", commit)
	if err != nil {
		return Surface{}, err
	}
	files := map[string][]byte{}
	for _, name := range strings.Split(strings.TrimSpace(list), "\n") {
		if !isSourceFile(name) {
			continue
		}
		content, err := git(repoDir, "show", commit+":"+name)
		if err != nil {
			return Surface{}, err
		}
		files[name] = []byte(content)
	}
	s, err := FromFiles(files, mainType)
	if err != nil {
		return Surface{}, fmt.Errorf("the module at %s: %w", ref, err)
	}
	return s, nil
}

// ResolveCommit returns the full commit SHA ref names in the repository at repoDir (a tag
// is peeled to its commit).
func ResolveCommit(repoDir, ref string) (string, error) {
	out, err := git(repoDir, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s is not a commit of this clone: fetch the history and tags "+
			"(git fetch --unshallow --tags, or actions/checkout with fetch-depth: 0): %w", ref, err)
	}
	return strings.TrimSpace(out), nil
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
