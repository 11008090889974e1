// Shipyard is the CI and release engine of tesk-core and of the Cloudcoil model packages:
// the same typed functions run on a laptop (`dagger call ci`), in thin GitHub Actions
// wrappers, and for a release (`dagger call release --tag v0.11.0`).
//
// This file is glue: it declares the functions and their arguments, converts them, and calls
// pipelines/ and models/, where the graphs and the rules live.
package main

import (
	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/dagger"
	"dagger/shipyard/internal/demo"
	"dagger/shipyard/internal/pins"
)

// Shipyard holds the arguments every function shares.
type Shipyard struct {
	// +private
	Source *dagger.Directory
	// +private
	Repo string
	// +private
	GithubToken *dagger.Secret
	// +private
	GithubAPI string
	// +private
	Registry string
	// +private
	Org string
	// +private
	RegistryUsername string
	// +private
	RegistryPassword *dagger.Secret
	// +private
	Pin []string
	// +private
	Platforms []string
	// +private
	Demo bool
	// rehearsal: the call writes nothing (--dry-run, --check), so it runs at the
	// pull-request level whatever it holds (rehearsing).
	rehearsal bool

	// The signing settings with-sigstore gives.

	// +private
	OidcToken *dagger.Secret
	// +private
	ActionsIDTokenRequestURL *dagger.Secret
	// +private
	ActionsIDTokenRequestToken *dagger.Secret
	// +private
	FulcioURL string
	// +private
	RekorURL string
	// +private
	TrustedRoot *dagger.File
	// +private
	GithubEnv []string
	// +private
	BuilderID string
	// +private
	BuildType string
	// +private
	InvocationID string

	clients clients
	// fn is the CLI name of the function this module is a call of (call), which with
	// what the call holds decides its trust level, platforms and tools.
	fn string
}

// New configures Shipyard once for every function: the repository to work on, where it lives
// on GitHub, and where its images are published. A bad --pin fails every function here,
// also those that pull no image, so a misspelt name never passes unnoticed.
func New(
	// The repository's working tree (defaults to the caller's repository).
	// +defaultPath="/"
	// +ignore=[".venv", "site", "dist", "**/__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules"]
	// +optional
	source *dagger.Directory,
	// The GitHub repository, owner/name.
	// +default="elixir-cloud-aai/tesk-core"
	repo string,
	// A GitHub token, e.g. env://GITHUB_TOKEN. Read-only access suffices for checks.
	// +optional
	githubToken *dagger.Secret,
	// The GitHub REST API base URL (GitHub Enterprise, or a test server).
	// +default="https://api.github.com/"
	githubApi string,
	// The container registry host images are published to.
	// +default="docker.io"
	registry string,
	// The registry organisation (a fork sets its own, like DOCKERHUB_ORG).
	// +default="elixircloud"
	org string,
	// The registry user name.
	// +optional
	registryUsername string,
	// The registry password or token, e.g. env://DOCKERHUB_TOKEN.
	// +optional
	registryPassword *dagger.Secret,
	// Replaces an image Shipyard pins, as NAME=IMAGE@sha256:… (names: python-3.X, uv,
	// trivy, k3s, go), e.g. to pull from a mirror or an air-gapped registry.
	// +optional
	pin []string,
	// Work on Shipyard's demo repositories (tesk-core at v0.11.0, Cloudcoil) and a demo
	// PyPI instead of GitHub and PyPI: Shipyard builds its demo server from its own source
	// and runs it as a Dagger service. No token, no network; replaces --github-api.
	// +optional
	demo bool,
) (*Shipyard, error) {
	if _, err := pins.DefaultPins().WithOverrides(pin); err != nil {
		return nil, err
	}
	return &Shipyard{
		Source:           source,
		Repo:             repo,
		GithubToken:      githubToken,
		GithubAPI:        githubApi,
		Registry:         registry,
		Org:              org,
		RegistryUsername: registryUsername,
		RegistryPassword: registryPassword,
		Pin:              pin,
		Demo:             demo,
	}, nil
}

// clients are how the module's functions reach the engine. The fields are unexported, so
// Dagger neither serializes nor exposes them: a real call leaves them nil and uses the
// module's own session; tests set them, and so need no package state.
type clients struct {
	// sdk is the published SDK's client, for pipelines/ and models/.
	sdk *sdk.Client
	// dag is the module's generated client, for the objects a function returns.
	dag *dagger.Client
	// supplychain is the supplychain command's source; nil is the module's own folder.
	supplychain *sdk.Directory
	// demoBuilder and demoSource build the demo server; nil are the module's own runtime
	// container and source.
	demoBuilder *sdk.Container
	demoSource  *sdk.Directory
	// demo, when set, is where a demo server already answers: tests serve the demo's
	// handlers themselves, and the --demo code paths run unchanged after the start.
	demo *demo.Endpoints
	// demoPyPI is this call's forwarder to the demo's PyPI, once opened.
	demoPyPI string
}
