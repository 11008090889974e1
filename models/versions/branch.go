package versions

import (
	"context"
	"errors"
	"fmt"

	"dagger/shipyard/internal/github"
)

// branchHolds reports whether the automation branch already is what a rebuild would make:
// it contains the base head (behind by nothing), and the files that differ from the base
// head are exactly the wanted ones, with the wanted contents (compared by Git blob SHA).
// A branch built on an older base head, holding an older plan, or carrying a hand-made
// commit that changes anything else fails the test and is rebuilt.
func branchHolds(cmp github.Comparison, want []FileChange) bool {
	if cmp.BehindBy != 0 || cmp.AheadBy == 0 || len(cmp.Files) != len(want) {
		return false
	}
	wantSHA := make(map[string]string, len(want))
	for _, f := range want {
		wantSHA[f.Path] = gitBlobSHA(f.Content)
	}
	for _, f := range cmp.Files {
		sha, ok := wantSHA[f.Path]
		if !ok || f.Status == "removed" || f.SHA != sha {
			return false
		}
	}
	return true
}

// syncBranch makes the automation branch the base head plus the planned commits, writing
// nothing when it already is: the branch is ahead by exactly that many commits and its
// files differ from the base head exactly as the last commit's. A rebuild makes the
// commits on the base head through the Git data API (each a tree on the head's tree with
// its cumulative files, or the head's tree itself for a commit without changes), so no
// checkout is needed; the branch is then created or force-moved, since only this flow
// writes it. It reports whether it pushed.
func (r *modelVersionsState) syncBranch(ctx context.Context, head string, specs []commitSpec) (bool, error) {
	want := specs[len(specs)-1].Files
	cmp, exists, err := r.gh.CompareFiles(ctx, r.owner, r.name, head, Branch)
	if err != nil {
		return false, err
	}
	if exists && branchHolds(cmp, want) && cmp.AheadBy == len(specs) {
		return false, nil
	}
	baseTree, err := r.gh.CommitTree(ctx, r.owner, r.name, head)
	if err != nil {
		return false, err
	}
	parent := head
	for _, spec := range specs {
		if parent, err = r.writeCommit(ctx, baseTree, parent, spec); err != nil {
			return false, err
		}
	}
	if err := r.moveBranch(ctx, parent, exists); err != nil {
		return false, err
	}

	// Confirm, and leave the ETag cache holding the comparison the next run will ask for.
	cmp, exists, err = r.gh.CompareFiles(ctx, r.owner, r.name, head, Branch)
	if err != nil {
		return false, err
	}
	if !exists || !branchHolds(cmp, want) || cmp.AheadBy != len(specs) {
		return false, fmt.Errorf("%s: after pushing %s the branch does not hold the planned commits on %s (%s); another writer may have pushed to it: re-run",
			Branch, short(parent), r.opts.Base, short(head))
	}
	r.report.Commit = parent
	return true, nil
}

// writeCommit writes one planned commit on parent and returns it. Trees and commits are
// new objects that nothing refers to until the ref moves, so repeating one whose answer
// was lost is harmless: no read-back needed.
func (r *modelVersionsState) writeCommit(ctx context.Context, baseTree, parent string, spec commitSpec) (string, error) {
	again := func(context.Context) (bool, error) { return false, nil }
	tree := baseTree
	if len(spec.Files) > 0 {
		changes := make([]github.TreeChange, 0, len(spec.Files))
		for _, c := range spec.Files {
			changes = append(changes, github.TreeChange{Path: c.Path, Content: c.Content})
		}
		if err := r.write(ctx, func(ctx context.Context) (err error) {
			tree, err = r.gh.CreateTree(ctx, r.owner, r.name, baseTree, changes)
			return err
		}, again); err != nil {
			return "", err
		}
	}
	var commit string
	err := r.write(ctx, func(ctx context.Context) (err error) {
		commit, err = r.gh.CreateCommit(ctx, r.owner, r.name, spec.Message, tree, []string{parent})
		return err
	}, again)
	return commit, err
}

// moveBranch points the automation branch at commit: created when missing, force-moved
// otherwise (a rebuild on a newer base head is never a fast forward of the old branch).
func (r *modelVersionsState) moveBranch(ctx context.Context, commit string, exists bool) error {
	isAt := func(ctx context.Context) (bool, error) {
		sha, found, err := r.gh.BranchHead(ctx, r.owner, r.name, Branch)
		return found && sha == commit, err
	}
	create := func(ctx context.Context) error { return r.gh.CreateBranch(ctx, r.owner, r.name, Branch, commit) }
	force := func(ctx context.Context) error { return r.gh.UpdateBranch(ctx, r.owner, r.name, Branch, commit, true) }
	if exists {
		err := r.write(ctx, force, isAt)
		if !errors.Is(err, github.ErrNotFound) {
			return err
		}
		// Deleted since the comparison: create it instead.
		return r.write(ctx, create, isAt)
	}
	err := r.write(ctx, create, isAt)
	if !errors.Is(err, github.ErrAlreadyExists) {
		return err
	}
	// The comparison found no common history (an unrelated branch of that name) or the
	// branch appeared meanwhile: it is ours to replace.
	return r.write(ctx, force, isAt)
}
