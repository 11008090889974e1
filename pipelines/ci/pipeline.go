package ci

import (
	"context"
	"dagger/shipyard/internal/buildplatform"
	"fmt"
	"slices"
	"time"

	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/trust"

	"dagger.io/dagger"
)

// Pipeline holds what every CI job shares: the client of the Dagger session, the project's
// source and the pinned images.
type Pipeline struct {
	Client *dagger.Client
	Source *dagger.Directory
	Pins   pins.Pins
	// ImagePrefix names published images: "tesk-core-" + "taskmaster".
	ImagePrefix string
	// Now is the clock for date rules (ignore-file expiry); never part of an exec's input.
	Now func() time.Time
	// Trust is the level of the cache volumes the jobs mount, the calling call's: the zero
	// Level (trust.Untrusted) for CI of pull requests and credential-free calls, a release
	// level for a credentialed publishing call.
	Trust trust.Level
	// Platforms are the platforms each image is built for (linux/amd64, linux/arm64); none
	// builds one image for the engine's own platform.
	Platforms []dagger.Platform
}

// DefaultPlatforms returns what published images are built for unless configured: the
// platforms of the clusters tesk-core runs on, x86-64 servers and arm64 ones (Graviton,
// Ampere), and of the laptops its developers pull the images on.
func DefaultPlatforms() []dagger.Platform {
	return []dagger.Platform{"linux/amd64", "linux/arm64"}
}

// PlatformsOf are the platforms a build makes images for: those configured (with-platforms'
// --platform values, checked by buildplatform.Parse); when none are, DefaultPlatforms for images
// that are published, and none (the engine's own platform) for the others, since what they
// build is only tested or scanned there.
func PlatformsOf(published bool, values []string) ([]dagger.Platform, error) {
	if len(values) == 0 && published {
		return slices.Clone(DefaultPlatforms()), nil
	}
	return buildplatform.Parse(values)
}

// New returns a pipeline with the default pins and tesk-core's image prefix.
func New(client *dagger.Client, source *dagger.Directory) *Pipeline {
	return &Pipeline{Client: client, Source: source, Pins: pins.DefaultPins(), ImagePrefix: "tesk-core-", Now: time.Now}
}

func (p *Pipeline) now() time.Time {
	if p.Now == nil {
		return time.Now()
	}
	return p.Now()
}

// Paths left out of each job's view of the source. Git history changes with every commit, and
// docs/ matters only to the docs job and the hooks, so keeping them out keeps the other jobs
// cached.
var (
	notCodeInputs = []string{".git", "docs/", "mkdocs.yml", ".venv/", "**/__pycache__/", "site/", "dist/"}
	docsInputs    = []string{"docs/", "mkdocs.yml", "pyproject.toml", "uv.lock"}
)

// codeSource is the source without docs and history: what test and e2e read.
func (p *Pipeline) codeSource() *dagger.Directory {
	return p.Source.Filter(dagger.DirectoryFilterOpts{Exclude: notCodeInputs})
}

// lintSource is what lint checks: every file of the project, docs/ included, as tesk-core runs
// its hooks (pre-commit run --all-files); only history and local build output are left out.
func (p *Pipeline) lintSource() *dagger.Directory {
	return p.Source.Filter(dagger.DirectoryFilterOpts{Exclude: lintExcluded})
}

// lintExcluded is what the hooks never see: the history (pre-commit indexes the files itself)
// and what a local run leaves behind.
var lintExcluded = []string{".git", ".venv/", "site/"}

// docsSource is what the docs build reads.
func (p *Pipeline) docsSource() *dagger.Directory {
	return p.Source.Filter(dagger.DirectoryFilterOpts{Include: docsInputs})
}

// imageContext is the Docker build context; it keeps the history only when setuptools_scm
// must derive the version from it.
func (p *Pipeline) imageContext(keepGit bool) *dagger.Directory {
	exclude := []string{"docs/", "mkdocs.yml", ".venv/", "site/", "**/__pycache__/"}
	if !keepGit {
		exclude = append(exclude, ".git")
	}
	return p.Source.Filter(dagger.DirectoryFilterOpts{Exclude: exclude})
}

// Inputs names each job's view of the source, so a change can be checked against what
// each job would rebuild (in a real engine, a job whose input digest is unchanged is cached).
func (p *Pipeline) Inputs() map[string]*dagger.Directory {
	return map[string]*dagger.Directory{
		"lint":   p.lintSource(),
		"test":   p.codeSource(),
		"e2e":    p.codeSource(),
		"docs":   p.docsSource(),
		"images": p.imageContext(false),
	}
}

// python returns a container with the given Python, uv, the shared uv cache and src mounted
// at /src as the working directory. The project environment lives outside /src so the
// source mount stays read-only in spirit and identical between jobs.
func (p *Pipeline) python(minor string, src *dagger.Directory) (*dagger.Container, error) {
	image, err := p.Pins.PythonImage(minor)
	if err != nil {
		return nil, err
	}
	uv := p.Client.Container().From(p.Pins.UV).File("/uv")
	return p.Client.Container().
		From(image).
		WithFile("/usr/local/bin/uv", uv).
		WithMountedCache("/root/.cache/uv", p.cacheVolume(trust.UVCacheVolume)).
		WithEnvVariable("UV_LINK_MODE", "copy").
		WithEnvVariable("UV_PYTHON_DOWNLOADS", "never").
		WithEnvVariable("UV_PROJECT_ENVIRONMENT", "/venv").
		// Without Git history setuptools_scm needs a version to install the project itself.
		WithEnvVariable("SETUPTOOLS_SCM_PRETEND_VERSION", FallbackVersion).
		WithDirectory("/src", src).
		WithWorkdir("/src"), nil
}

// toolPython is the Python version of single-version jobs (lint, docs): the newest in pins.
func (p *Pipeline) toolPython() string {
	vs := make([]string, 0, len(p.Pins.Python))
	for v := range p.Pins.Python {
		vs = append(vs, v)
	}
	sortMinors(vs)
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// readSourceFile reads a file of the source, or reports that it is absent.
func readSourceFile(ctx context.Context, src *dagger.Directory, path string) (string, bool, error) {
	ok, err := src.Exists(ctx, path)
	if err != nil {
		return "", false, fmt.Errorf("looking for %s: %w", path, err)
	}
	if !ok {
		return "", false, nil
	}
	s, err := src.File(path).Contents(ctx)
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %w", path, err)
	}
	return s, true, nil
}
