package publish

import (
	"context"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/reponame"
)

// devBranch is the branch whose newest commit the dev tag follows; DevRef is its git ref,
// which publish-dev's provenance names.
const (
	devBranch = "dev"
	DevRef    = "refs/heads/" + devBranch
)

// DevOrder reads, right before dev is to move, what the dev branch says about commit (its
// GitHub half): the registry command then reads the images of the newer commits right
// before dev moves and decides whether commit is still the newest of dev with an image,
// so a re-run of an older run never moves dev back.
type DevOrder func(ctx context.Context, commit string) (DevHistory, error)

// GitHubDevOrder reads the commit order from the GitHub repository repo (owner/name).
func GitHubDevOrder(gh *github.Client, repo string) DevOrder {
	return func(ctx context.Context, commit string) (DevHistory, error) {
		n, err := reponame.Parse(repo)
		if err != nil {
			return DevHistory{}, err
		}
		onDev, newer, complete, err := gh.CommitsAfter(ctx, n.Owner, n.Repo, commit, devBranch)
		if err != nil {
			return DevHistory{}, err
		}
		return DevHistory{Commit: commit, OnDev: onDev, Newer: newer, Complete: complete}, nil
	}
}
