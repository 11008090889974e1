// Shipyard is the CI and release engine of tesk-core and of the Cloudcoil model packages:
// the same typed functions run on a laptop (`dagger call ci`), in thin GitHub Actions
// wrappers, and for a release (`dagger call release --tag v0.11.0`).
//
// This file is glue: it declares the functions and their arguments, converts them, and calls
// pipelines/ and models/, where the graphs and the rules live.
package main

import (
	"context"
	"fmt"

	"dagger/shipyard/internal/dagger"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/pipelines/ci"
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
}

// New configures Shipyard once for every function: the repository to work on, where it lives
// on GitHub, and where its images are published.
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
) *Shipyard {
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
	}
}

// pins are the images Shipyard runs, with the caller's --pin overrides.
func (m *Shipyard) pins() (pins.Pins, error) {
	return pins.DefaultPins().WithOverrides(m.Pin)
}

// pipeline connects the CI graph to the session with this module's source and image pins.
func (m *Shipyard) pipeline(ctx context.Context, pythonImages []string) (*ci.Pipeline, error) {
	c, err := m.session(ctx)
	if err != nil {
		return nil, err
	}
	src, err := toSDKDirectory(ctx, c, m.Source)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	p := ci.New(c, src)
	if p.Pins, err = m.pins(); err != nil {
		return nil, err
	}
	if p.Pins, err = p.Pins.WithPythonImages(pythonImages); err != nil {
		return nil, err
	}
	return p, nil
}

// images connects the pipeline and builds (lazily) the project's images.
func (m *Shipyard) images(ctx context.Context, version string) (*ci.Pipeline, []ci.Image, error) {
	p, err := m.pipeline(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	images, err := p.Images(ctx, version)
	if err != nil {
		return nil, nil, err
	}
	return p, images, nil
}

// PrTitle checks a pull request title: Conventional Commits (type(scope)!: subject, with a
// type from feat, fix, docs, style, refactor, perf, test, build, ci, chore, revert) and at
// most 50 characters, since squash merges use it as the commit message.
func (m *Shipyard) PrTitle(
	// The pull request title.
	title string,
) (string, error) {
	if err := ci.CheckPRTitle(title); err != nil {
		return "", err
	}
	return fmt.Sprintf("PR title ok: %q", title), nil
}

// Lint runs the hooks of .pre-commit-config.yaml, `uv lock --check` and cffconvert's
// validation of CITATION.cff, in containers. Returns their output.
// +check
func (m *Shipyard) Lint(ctx context.Context) (string, error) {
	p, err := m.pipeline(ctx, nil)
	if err != nil {
		return "", err
	}
	return p.Lint(ctx)
}

// Test runs the tests under coverage on each Python version (default: those pyproject.toml
// supports), in parallel, enforcing the project's coverage threshold. Returns a directory
// with <version>/coverage.xml for upload.
func (m *Shipyard) Test(
	ctx context.Context,
	// Python versions to test (e.g. 3.12); default: from pyproject.toml.
	// +optional
	python []string,
	// Extra Python images, as 3.X=image@sha256:… .
	// +optional
	pythonImage []string,
) (*dagger.Directory, error) {
	p, err := m.pipeline(ctx, pythonImage)
	if err != nil {
		return nil, err
	}
	versions, err := p.TestVersions(ctx, python)
	if err != nil {
		return nil, err
	}
	out, _, err := p.Test(ctx, versions)
	if err != nil {
		return nil, err
	}
	return m.fromSDKDirectory(ctx, out)
}

// Docs builds the docs with `mkdocs build --strict` and returns the site.
func (m *Shipyard) Docs(ctx context.Context) (*dagger.Directory, error) {
	p, err := m.pipeline(ctx, nil)
	if err != nil {
		return nil, err
	}
	site, err := p.DocsSite(ctx)
	if err != nil {
		return nil, err
	}
	return m.fromSDKDirectory(ctx, site)
}

// Images builds every containers/<name>.Dockerfile (taskmaster and filer) from the root of
// the repository, with SETUPTOOLS_SCM_PRETEND_VERSION set to --version when given.
func (m *Shipyard) Images(
	ctx context.Context,
	// The package version without v (e.g. 0.11.0rc1); default: from Git history, else 0.0.0.dev0.
	// +optional
	version string,
) ([]*dagger.Container, error) {
	_, images, err := m.images(ctx, version)
	if err != nil {
		return nil, err
	}
	out := make([]*dagger.Container, 0, len(images))
	for _, img := range images {
		c, err := m.fromSDKContainer(ctx, img.Container)
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", img.Spec.Name, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// Scan builds the images and scans them with Trivy: fails on CRITICAL and HIGH
// vulnerabilities that have a fix, except those accepted in .trivyignore.yaml, whose entries
// must each have a reason (statement) and an expiry (expired_at). Returns the JSON and SARIF
// reports and a summary.
// +cache="session"
func (m *Shipyard) Scan(
	ctx context.Context,
	// The package version without v; default: derived.
	// +optional
	version string,
) (*dagger.Directory, error) {
	p, images, err := m.images(ctx, version)
	if err != nil {
		return nil, err
	}
	dir, _, err := p.Scan(ctx, images)
	if err != nil {
		return nil, err
	}
	return m.fromSDKDirectory(ctx, dir)
}

// EndToEnd runs the end-to-end tests on a k3s cluster (a Dagger service) with both images built
// from the same source loaded into it, the manifests of tests/e2e/manifests applied and the
// HTTP server pod awaited. Returns pytest's output. The k3s service runs with insecure root
// capabilities: never call e2e on an engine shared with publish or release jobs.
func (m *Shipyard) EndToEnd(ctx context.Context) (string, error) {
	p, images, err := m.images(ctx, "")
	if err != nil {
		return "", err
	}
	return p.E2E(ctx, images)
}

// Ci runs the whole CI workflow concurrently (PR title, lint, the test matrix, end-to-end
// tests, docs, image scans; each image built once) and then the "CI passed" gate: a summary
// table of every job, and an error if any failed. Returns the artifacts (coverage, site,
// scan reports) with summary.md.
// +cache="session"
func (m *Shipyard) Ci(
	ctx context.Context,
	// The pull request title to check; pushes have none.
	// +optional
	prTitle string,
	// Python versions to test; default: from pyproject.toml.
	// +optional
	python []string,
	// Extra Python images, as 3.X=image@sha256:… .
	// +optional
	pythonImage []string,
) (*dagger.Directory, error) {
	p, err := m.pipeline(ctx, pythonImage)
	if err != nil {
		return nil, err
	}
	summary, artifacts, runErr := p.Run(ctx, ci.Options{PRTitle: prTitle, Python: python})
	if artifacts == nil {
		return nil, runErr
	}
	if runErr != nil {
		return nil, runErr
	}
	return m.fromSDKDirectory(ctx, artifacts.WithNewFile("summary.md", summary.Table()))
}
