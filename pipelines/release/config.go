package release

import (
	"context"
	"fmt"

	"dagger.io/dagger"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/reponame"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/releasegate"
)

// Config is what the steps share: the Dagger session, GitHub, where the source lives, and
// what the images' supply chain needs.
type Config struct {
	// Flow is the function the release is a call of (release, release-push …), which with
	// the tag names the flow in logs and errors: "release v0.11.0".
	Flow   string
	Client *dagger.Client
	// Stop, when set, ends a run before one of its steps, as a success whose report says
	// why: the demo's release stops before the first step that needs what it does not
	// serve. Decided with the rest of the configuration, where the demo is.
	Stop Stop
	// GitHub is read by every step and written (contents: write) by the release step.
	GitHub github.API
	// Repo is the GitHub repository, owner/name.
	Repo string
	// Gates adjusts release-plan (CI workflow, image organisation).
	Gates releasegate.Config
	// GitHubWeb is the GitHub instance's web and git root (github.WebURL of its API base);
	// empty means github.com. The provenance's source repository and the default GitURL
	// are under it.
	GitHubWeb string
	// GitURL is where Dagger fetches the tagged source (default <GitHubWeb><Repo>.git).
	GitURL string
	// GitHubToken is the GitHub token, which authenticates the fetch of a private
	// repository from GitHub (the default GitURL); nil fetches anonymously.
	GitHubToken *dagger.Secret
	// GitService, when set, is the Dagger service that serves GitURL (the demo's git host):
	// the engine starts it for the fetch.
	GitService *dagger.Service
	// Package is the Python distribution in the images; empty reads [project] name from
	// pyproject.toml at the tagged commit.
	Package string
	// Images are the supply-chain steps of the images.
	Images ImageConfig
	// Log receives one line per step and outcome; nil discards them.
	Log func(format string, args ...any)
	// PinOverrides are the caller's --pin values (NAME=IMAGE). The builds and scans run the
	// tagged tree's pins, as every function that works on a tree does (pins.ForTree): the
	// defaults, then the tagged commit's pins file (pins.File), then these, which win.
	PinOverrides []string
	// Platforms are the platforms each image is built for and published as one image
	// index; none builds one image for the engine's platform.
	Platforms []dagger.Platform
	// Trust is the level of the cache volumes the release's graphs mount (the calling
	// function's, from internal/trust).
	Trust trust.Level
}

// pipeline is the CI graph of src, with Shipyard's default pins: what needs no image the
// pins name (the images' recipes, their names).
func (c Config) pipeline(src *dagger.Directory) *ci.Pipeline {
	p := ci.New(c.Client, src)
	p.Platforms = c.Platforms
	p.Trust = c.Trust
	return p
}

// taggedPipeline is the CI graph of the tagged tree src, running the images its pins file
// sets with the caller's --pin over them (pins.ForTree): what Dependabot bumped on dev is
// what the release scans with. A malformed file stops the release here, before anything is
// built, with the file's line, what is wrong and how to write it.
func (c Config) taggedPipeline(ctx context.Context, src *dagger.Directory, tag string) (*ci.Pipeline, error) {
	file, err := ci.RepositoryPins(ctx, src)
	if err == nil {
		p := c.pipeline(src)
		if p.Pins, err = pins.ForTree(file, c.PinOverrides); err == nil {
			return p, nil
		}
	}
	return nil, fmt.Errorf("at %s: %w", tag, err)
}

func (c Config) gitURL() string {
	if c.GitURL != "" {
		return c.GitURL
	}
	return c.repoURL() + ".git"
}

// repoURL is the repository's web address, as the provenance names its source.
func (c Config) repoURL() string {
	web := c.GitHubWeb
	if web == "" {
		web = github.DefaultWebURL
	}
	return web + c.Repo
}

// attestationStore is the repository's GitHub attestation store, where the release's
// verified bundles also go; none without a GitHub client (the checks that read nothing).
// A malformed Repo is refused by the steps that read GitHub first.
func (c Config) attestationStore() publish.AttestationStore {
	owner, name, err := c.owner()
	if c.GitHub == nil || err != nil {
		return nil
	}
	return github.AttestationStore{API: c.GitHub, Owner: owner, Repo: name}
}

func (c Config) owner() (string, string, error) {
	n, err := reponame.Parse(c.Repo)
	if err != nil {
		return "", "", fmt.Errorf("%w: want owner/name", err)
	}
	return n.Owner, n.Repo, nil
}

// publishedReleases lists the tags of the repository's published (not draft) releases.
func (c Config) publishedReleases(ctx context.Context) ([]string, error) {
	owner, name, err := c.owner()
	if err != nil {
		return nil, err
	}
	rels, err := c.GitHub.Releases(ctx, owner, name)
	if err != nil {
		return nil, err
	}
	var published []string
	for _, r := range rels {
		if !r.Draft {
			published = append(published, r.TagName)
		}
	}
	return published, nil
}
