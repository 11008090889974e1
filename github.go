package main

import (
	"context"
	"errors"
	"fmt"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/demo"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/githubcmd"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/reponame"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/pipelines/publish"
)

// The GitHub client a call reads and writes through, and what it reads for several functions.

// githubClient is GitHub for this call: each operation a run of Shipyard's GitHub command
// (githubCommand), so the module binary links no GitHub client.
func (m *Shipyard) githubClient(ctx context.Context) (*githubcmd.Client, error) {
	cmd, err := m.githubCommand(ctx)
	if err != nil {
		return nil, err
	}
	return githubcmd.NewClient(cmd), nil
}

// githubCommand is the GitHub command for this call (internal/githubcmd): built from the
// module's source with the call's pins and the Go caches of its trust level, reaching
// --github-api as --github-token, which it gets as a secret file, and keeping GitHub's
// ETags in a cache volume of the call's trust level. With --demo it reaches the demo
// server's GitHub, bound to its container, without a token.
func (m *Shipyard) githubCommand(ctx context.Context) (githubcmd.Command, error) {
	if m.Demo && m.GithubToken != nil {
		return githubcmd.Command{}, fmt.Errorf("--demo answers from Shipyard's own demo repositories, which need no token: drop --github-token (or --demo, to work on GitHub)")
	}
	tool, err := m.builtCommand(ctx, m.moduleSource, func(c *sdk.Client, src *sdk.Directory, p pins.Pins, level trust.Level) *sdk.Container {
		return githubcmd.Build(c, src, p.Go, level)
	})
	if err != nil {
		return githubcmd.Command{}, err
	}
	cmd := githubcmd.Command{Tool: tool, API: m.GithubAPI}
	if m.Demo {
		e, err := m.demoEndpoints(ctx)
		if err != nil {
			return githubcmd.Command{}, err
		}
		if e.Service == nil {
			return githubcmd.Command{}, errors.New("the demo server is not running")
		}
		return cmd.WithDemo(e.Service, demo.GitHubPort), nil
	}
	c, err := m.session(ctx)
	if err != nil {
		return githubcmd.Command{}, err
	}
	if cmd.Token, err = toSDKSecret(ctx, c, m.GithubToken); err != nil {
		return githubcmd.Command{}, fmt.Errorf("--github-token: %w", err)
	}
	if cmd.Token != nil {
		level, err := m.level(ctx)
		if err != nil {
			return githubcmd.Command{}, err
		}
		p, err := m.pins()
		if err != nil {
			return githubcmd.Command{}, err
		}
		cmd.Cache = c.CacheVolume(level.CacheVolumeName(githubcmd.CacheVolume, p))
	}
	return cmd, nil
}

// branchOrder reads the commit order of --repo's branch that the policy's branch tag
// follows (tesk-core's dev) from GitHub, asked right before that tag is written: whether
// the commit is on the branch, and the branch's commits after it.
func (m *Shipyard) branchOrder(ctx context.Context, p publish.TagPolicy) (publish.BranchOrder, error) {
	repo, gh, err := m.repoClient(ctx)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, commit string) (publish.BranchHistory, error) {
		onBranch, newer, complete, err := gh.CommitsAfter(ctx, repo.Owner, repo.Repo, commit, p.Branch)
		if err != nil {
			return publish.BranchHistory{}, err
		}
		return publish.BranchHistory{Commit: commit, OnBranch: onBranch, Newer: newer, Complete: complete}, nil
	}, nil
}

// attestationStore is --repo's attestation store on GitHub, where the bundles a flow
// verified also go, through the GitHub command (the token needs attestations: write).
func (m *Shipyard) attestationStore(ctx context.Context) (publish.AttestationStore, error) {
	repo, gh, err := m.repoClient(ctx)
	if err != nil {
		return nil, err
	}
	return github.AttestationStore{API: gh, Owner: repo.Owner, Repo: repo.Repo}, nil
}

// repoClient is --repo and the GitHub client that reaches it. --repo is the user's: a
// malformed one is said here, before the command would call it a usage error of
// Shipyard's.
func (m *Shipyard) repoClient(ctx context.Context) (reponame.Name, *githubcmd.Client, error) {
	repo, err := reponame.Parse(m.Repo)
	if err != nil {
		return reponame.Name{}, nil, fmt.Errorf("--repo: %w", err)
	}
	gh, err := m.githubClient(ctx)
	return repo, gh, err
}

// publishedReleases are the tags of --repo's published (not draft) releases.
func (m *Shipyard) publishedReleases(ctx context.Context) ([]string, error) {
	gh, err := m.githubClient(ctx)
	if err != nil {
		return nil, err
	}
	repo, err := reponame.Parse(m.Repo)
	if err != nil {
		return nil, fmt.Errorf("--repo: %w", err)
	}
	rels, err := gh.Releases(ctx, repo.Owner, repo.Repo)
	if err != nil {
		return nil, fmt.Errorf("listing the releases of %s: %w", m.Repo, err)
	}
	var tags []string
	for _, r := range rels {
		if !r.Draft {
			tags = append(tags, r.TagName)
		}
	}
	return tags, nil
}
