package publish

import "context"

// DevBranch is the branch whose newest commit the dev tag follows; DevRef is its git ref,
// which publish-dev's provenance names.
const (
	DevBranch = "dev"
	DevRef    = "refs/heads/" + DevBranch
)

// DevOrder reads, right before dev is to move, what the dev branch says about commit (its
// GitHub half, which the module's GitHub command reads): the registry command then reads
// the images of the newer commits right before dev moves and decides whether commit is
// still the newest of dev with an image, so a re-run of an older run never moves dev back.
type DevOrder func(ctx context.Context, commit string) (DevHistory, error)
