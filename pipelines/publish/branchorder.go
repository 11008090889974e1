package publish

import "context"

// BranchRef is the git ref of the policy's branch, which the provenance of an image
// published for one of its commits names.
func BranchRef(p TagPolicy) string { return "refs/heads/" + p.Branch }

// BranchOrder reads, right before the branch tag is to move, what the policy's branch says
// about commit (its GitHub half, which the module's GitHub command reads): the registry
// command then reads the images of the newer commits right before the tag moves and
// decides whether commit is still the newest of the branch with an image, so a re-run of
// an older run never moves the tag back.
type BranchOrder func(ctx context.Context, commit string) (BranchHistory, error)
