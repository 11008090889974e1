package registry

import (
	"context"
	"fmt"

	"dagger/shipyard/supplychain/wire"
)

// StillNewest is asked immediately before the branch tag moves off the digest from, as
// StillLatest is before the latest tag moves: it says whether the image being tagged is
// still of the newest commit of the branch that has an image, and if not, why.
type StillNewest func(ctx context.Context, from string) (ok bool, why string, err error)

// TagPolicy is the wire's: how the publishing system names its latest, branch and commit
// tags.
type TagPolicy = wire.TagPolicy

// BranchHistory is the wire's: what apply-tags reads with --branch-history.
type BranchHistory = wire.BranchHistory

// StillNewestIn is the recheck of p's branch tag in repo given what the branch says (h,
// read just before): right before the tag moves, it resolves the commit tags of the newer
// commits in repo and decides with StillNewestOnBranch.
func StillNewestIn(p TagPolicy, repo string, h BranchHistory, auth Auth, opts ...Option) StillNewest {
	return func(ctx context.Context, from string) (bool, string, error) {
		images := map[string]string{}
		if h.OnBranch && h.Complete && len(h.Newer) > 0 {
			tags := make([]string, 0, len(h.Newer))
			for _, c := range h.Newer {
				tags = append(tags, p.CommitTag(c))
			}
			var err error
			if images, err = ResolveTags(ctx, repo, tags, auth, opts...); err != nil {
				return false, "", err
			}
		}
		ok, why := StillNewestOnBranch(p, h, images, from)
		return ok, why, nil
	}
}

// StillNewestOnBranch decides, by commit order on p's branch, whether the branch tag may
// move to the image of h.Commit while it points at now (empty: the tag does not exist
// yet). commitTags holds the digests of the commit tags of h.Newer that exist. The branch
// tag is written only for a commit on the branch, and never moves off the image of a newer
// commit: a re-run of an older run's tag step then leaves it where it is.
func StillNewestOnBranch(p TagPolicy, h BranchHistory, commitTags map[string]string, now string) (bool, string) {
	left := p.BranchTag + " left absent"
	if now != "" {
		left = p.BranchTag + " left on " + now
	}
	switch {
	case !h.OnBranch:
		return false, fmt.Sprintf("commit %s is not on the %s branch: %s", h.Commit, p.Branch, left)
	case !h.Complete:
		return false, fmt.Sprintf("%s has more commits after %s than one comparison lists: %s", p.Branch, h.Commit, left)
	case now == "":
		return true, "" // no image to move off
	}
	for i := len(h.Newer) - 1; i >= 0; i-- {
		if c := h.Newer[i]; commitTags[p.CommitTag(c)] == now {
			return false, fmt.Sprintf("%s is on the image of %s, a newer commit of %s than %s: %s", p.BranchTag, c, p.Branch, h.Commit, left)
		}
	}
	return true, ""
}
