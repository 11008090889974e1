package registry

import (
	"context"
	"fmt"

	"dagger/shipyard/supplychain/wire"
)

// StillNewest is asked immediately before dev moves off the digest from, as StillLatest
// is before latest moves: it says whether the image being tagged is still of the newest
// commit of the dev branch that has an image, and if not, why.
type StillNewest func(ctx context.Context, from string) (ok bool, why string, err error)

// DevHistory is the wire's: what apply-tags reads with --dev-history.
type DevHistory = wire.DevHistory

// StillNewestIn is the recheck of dev in repo given what the dev branch says (h, read
// just before): right before dev moves, it resolves the sha-<commit> tags of the newer
// commits in repo and decides with StillNewestOnDev.
func StillNewestIn(repo string, h DevHistory, auth Auth, opts ...Option) StillNewest {
	return func(ctx context.Context, from string) (bool, string, error) {
		images := map[string]string{}
		if h.OnDev && h.Complete && len(h.Newer) > 0 {
			tags := make([]string, 0, len(h.Newer))
			for _, c := range h.Newer {
				tags = append(tags, CommitTag(c))
			}
			var err error
			if images, err = ResolveTags(ctx, repo, tags, auth, opts...); err != nil {
				return false, "", err
			}
		}
		ok, why := StillNewestOnDev(h, images, from)
		return ok, why, nil
	}
}

// CommitTag is the tag naming the image of one commit, sha-<commit>.
func CommitTag(commit string) string { return "sha-" + commit }

// StillNewestOnDev decides, by commit order on dev, whether dev may move to the image of
// h.Commit while it points at devNow (empty: dev does not exist yet). commitTags holds the
// digests of the sha-<commit> tags of h.Newer that exist. dev is written only for a commit
// on dev, and never moves off the image of a newer commit: a re-run of an older run's tag
// step then leaves dev where it is.
func StillNewestOnDev(h DevHistory, commitTags map[string]string, devNow string) (bool, string) {
	left := "dev left absent"
	if devNow != "" {
		left = "dev left on " + devNow
	}
	switch {
	case !h.OnDev:
		return false, fmt.Sprintf("commit %s is not on the dev branch: %s", h.Commit, left)
	case !h.Complete:
		return false, fmt.Sprintf("dev has more commits after %s than one comparison lists: %s", h.Commit, left)
	case devNow == "":
		return true, "" // no image to move off
	}
	for i := len(h.Newer) - 1; i >= 0; i-- {
		if c := h.Newer[i]; commitTags[CommitTag(c)] == devNow {
			return false, fmt.Sprintf("dev is on the image of %s, a newer commit of dev than %s: dev left on %s", c, h.Commit, devNow)
		}
	}
	return true, ""
}
