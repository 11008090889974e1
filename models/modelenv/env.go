package modelenv

import (
	"fmt"
	"net/http"
	"time"

	"dagger.io/dagger"

	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/trust"
)

// DefaultPython is the Python minor the model graphs run on: the newest that the pinned
// images and Cloudcoil's generator both support.
const DefaultPython = "3.13"

// Env is what every graph of this package shares, the model flows' Config: the session's
// client, the pinned images (internal/pins, the single place images are pinned), the
// HTTP client for PyPI and where the flows log.
type Env struct {
	Client *dagger.Client
	Pins   pins.Pins
	// Python is a key of Pins.Python.
	Python string
	// Trust is the level of the uv cache volume (internal/trust's levels, whose volumes the
	// CI graph shares): Untrusted by default; the module sets each call's level from
	// internal/trust, from what its caller holds, and no flow raises it.
	Trust trust.Level
	// PyPI is the HTTP client for PyPI's JSON API (nil: one with a timeout).
	PyPI *http.Client
	// Log receives one line per step of a model flow (model-release, update-repos; nil:
	// none). The flows call it from one goroutine at a time.
	Log func(format string, args ...any)
}

// PyPIClient is the Env's PyPI client, or one with a timeout.
func (e Env) PyPIClient() *http.Client {
	if e.PyPI != nil {
		return e.PyPI
	}
	return &http.Client{Timeout: time.Minute}
}

// NewEnv returns an Env with the default pins and Python.
func NewEnv(c *dagger.Client) Env {
	return Env{Client: c, Pins: pins.DefaultPins(), Python: DefaultPython}
}

// python is a container with Python, uv and the uv cache of the Env's trust level, repo at /repo as the
// working directory, and the project environment outside it (/venv) so what is read back
// from /repo is the repository alone. It carries no secret: nothing of this package needs
// one inside a container.
func (e Env) PythonContainer(repo *dagger.Directory) (*dagger.Container, error) {
	image, err := e.Pins.PythonImage(e.Python)
	if err != nil {
		return nil, err
	}
	if e.Pins.UV == "" {
		return nil, fmt.Errorf("image pins: uv is empty")
	}
	uv := e.Client.Container().From(e.Pins.UV).File("/uv")
	uvx := e.Client.Container().From(e.Pins.UV).File("/uvx")
	return e.Client.Container().
		From(image).
		WithFile("/usr/local/bin/uv", uv).
		WithFile("/usr/local/bin/uvx", uvx).
		WithMountedCache("/root/.cache/uv", e.Client.CacheVolume(e.Trust.CacheVolumeName(trust.UVCacheVolume, e.Pins))).
		WithEnvVariable("UV_LINK_MODE", "copy").
		WithEnvVariable("UV_PYTHON_DOWNLOADS", "never").
		WithEnvVariable("UV_PROJECT_ENVIRONMENT", "/venv").
		WithDirectory("/repo", repo).
		WithWorkdir("/repo"), nil
}

// MakePath is where WithMake puts make.
const MakePath = "/usr/bin/make"

// WithMake adds GNU make to a container of the pinned Python image, which has none: the
// binary of the pinned Go image, Debian bookworm's like the Python images', which needs
// nothing but the C library. Copying it keeps the graph free of a package download.
func (e Env) WithMake(ctr *dagger.Container) (*dagger.Container, error) {
	if e.Pins.Go == "" {
		return nil, fmt.Errorf("image pins: go is empty (make is taken from it)")
	}
	return ctr.WithFile(MakePath, e.Client.Container().From(e.Pins.Go).File(MakePath)), nil
}

// Committed is what git would commit of a repository: the engine applies the .gitignore
// files inside it (go-git's rules, as git's).
func Committed(repo *dagger.Directory) *dagger.Directory {
	return repo.Filter(dagger.DirectoryFilterOpts{Gitignore: true})
}
