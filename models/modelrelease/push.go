package modelrelease

import (
	"context"
	"errors"
	"fmt"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/models/modelenv"
)

// push writes the release commit and moves the release branch to it without force. The
// commit's tree is exactly the generated repository with the record (files the generation
// no longer writes are gone), written on the parent's tree so only what differs is sent
// (github.Calls.WriteTree), its parent the head the plan read, or main's commit for a
// new branch. GitHub then accepts the move only if nobody
// moved the branch since the plan read it: a lost race wraps errLostRace. When the head
// already records this exact release, nothing is written and the head is the commit.
func (r remote) push(ctx context.Context, plan Allocation, files modelenv.Tree, start string) (string, error) {
	if !plan.Push {
		return plan.Parent, nil
	}
	// Mode "": the modes the parent has (an executable made by update-repos stays one),
	// since the tree read here carries none.
	changes := make([]github.TreeFile, 0, len(files)+1)
	for _, p := range files.Paths() {
		if p != RecordPath {
			changes = append(changes, github.TreeFile{Path: p, Content: files[p]})
		}
	}
	changes = append(changes, github.TreeFile{Path: RecordPath, Content: plan.Record.Marshal()})
	base, err := r.gh.CommitTree(ctx, r.owner, r.repo, plan.Parent)
	if err != nil {
		return "", fmt.Errorf("%s: %w", plan.Branch, err)
	}
	current, complete, err := r.gh.Tree(ctx, r.owner, r.repo, base)
	if err != nil {
		return "", fmt.Errorf("%s: %w", plan.Branch, err)
	}
	if !complete {
		base, current = "", nil // a cut listing: send every file, on no base
	}
	tree, err := r.gh.WriteTree(ctx, r.owner, r.repo, base, current, changes, github.DefaultTreeBatches())
	if err != nil {
		return "", fmt.Errorf("%s: %w", plan.Branch, err)
	}
	message := fmt.Sprintf("Release %s: models of upstream %s\n\nGenerated from %s at %s.\nFingerprint: %s\n",
		plan.Version, plan.Upstream, r.main, start, plan.Record.Fingerprint)
	commit, err := r.gh.CreateCommit(ctx, r.owner, r.repo, message, tree, []string{plan.Parent})
	if err != nil {
		return "", fmt.Errorf("%s: %w", plan.Branch, err)
	}
	move := func(ctx context.Context) error {
		if plan.CreateBranch {
			return r.gh.CreateBranch(ctx, r.owner, r.repo, plan.Branch, commit)
		}
		return r.gh.UpdateBranch(ctx, r.owner, r.repo, plan.Branch, commit, false)
	}
	moved := func(ctx context.Context) (bool, error) {
		head, ok, err := r.gh.BranchHead(ctx, r.owner, r.repo, plan.Branch)
		return ok && head == commit, err
	}
	err = r.gh.WriteThenVerify(ctx, move, moved)
	switch {
	case errors.Is(err, github.ErrAlreadyExists), errors.Is(err, github.ErrNotFastForward):
		return "", fmt.Errorf("%s: %w: %w", plan.Branch, errLostRace, err)
	case err != nil:
		return "", fmt.Errorf("%s: %w", plan.Branch, err)
	}
	return commit, nil
}
