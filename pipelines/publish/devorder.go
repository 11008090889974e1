package publish

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/registry"
	"dagger/shipyard/internal/reponame"
)

// devBranch is the branch whose newest commit the dev tag follows; DevRef is its git ref,
// which publish-dev's provenance names.
const (
	devBranch = "dev"
	DevRef    = "refs/heads/" + devBranch
)

// DevOrder rechecks, right before dev moves in an image repository off the digest from,
// that commit is still the newest commit of the dev branch with an image there
// (registry.StillNewestOnDev): a re-run of an older run must not move dev back.
type DevOrder func(ctx context.Context, repository, commit, from string) (ok bool, why string, err error)

// GitHubDevOrder reads the commit order from the GitHub repository repo (owner/name) and
// the images of the newer commits (their sha-<commit> tags) from the registry of t.
func GitHubDevOrder(gh *github.Client, repo string, t Target) DevOrder {
	return func(ctx context.Context, repository, commit, from string) (bool, string, error) {
		n, err := reponame.Parse(repo)
		if err != nil {
			return false, "", err
		}
		onDev, newer, complete, err := gh.CommitsAfter(ctx, n.Owner, n.Repo, commit, devBranch)
		if err != nil {
			return false, "", err
		}
		h := registry.DevHistory{Commit: commit, OnDev: onDev, Newer: newer, Complete: complete}
		tags := make([]string, 0, len(newer))
		for _, c := range newer {
			tags = append(tags, registry.CommitTag(c))
		}
		images := map[string]string{}
		if onDev && complete && len(tags) > 0 {
			if images, err = registry.ResolveTags(ctx, repository, tags, t.Auth, t.RegistryOptions...); err != nil {
				return false, "", err
			}
		}
		ok, why := registry.StillNewestOnDev(h, images, from)
		return ok, why, nil
	}
}

// devCommit is the commit whose image dev is to point at: the one the call's
// sha-<commit> tag names. dev without it has no place in the commit order.
func devCommit(tags []string) (string, error) {
	if !slices.Contains(tags, registry.TagDev) {
		return "", nil
	}
	for _, t := range tags {
		if c, ok := strings.CutPrefix(t, "sha-"); ok && commitRE.MatchString(c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("dev follows the newest commit of the dev branch: tag the commit's image sha-<full commit SHA> in the same call (e.g. --tag dev --tag sha-$GITHUB_SHA)")
}
