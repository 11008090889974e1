// Package demo runs Shipyard's demo world (internal/demoworld/demoserver) as a Dagger service:
// the demo server is built from the module's own source in the module's own runtime
// container, which every engine already has (it runs the module), so `--demo` pulls no
// image and needs no token, no registry and no server outside the engine.
package demo

import (
	"context"
	"fmt"
	"slices"

	"dagger.io/dagger"

	"dagger/shipyard/internal/gobuild"
)

// Package is the demo server's command, relative to the module's root.
const Package = "./internal/demoworld/demoserver/cmd/demo-server"

// Sources are the module's files the command is built from: its package and the packages
// it imports (a test holds this list to `go list -deps`), so editing anything else
// rebuilds nothing.
func Sources() []string { return slices.Clone(sources) }

var sources = []string{
	"go.mod", "go.sum",
	"internal/demoworld/demoserver/**",
	"internal/demoworld/corpus/**",
	"internal/demoworld/githubsim/**",
	"internal/demoworld/gitserve/**",
	"internal/demoworld/pypisim/**",
	"internal/demoworld/teskdemo/**",
	"internal/version/**",
}

const binary = "/usr/local/bin/demo-server"

// The ports the service exposes.
const (
	GitHubPort = 8080
	PyPIPort   = 8081
	GitPort    = 8082
)

// Service builds the demo server from moduleSrc (the module's root) in builder, a container
// with the Go toolchain, and returns it as a service on demoserver's ports. The server
// runs alone in an empty container: it is one static binary.
func Service(c *dagger.Client, builder *dagger.Container, moduleSrc *dagger.Directory) *dagger.Service {
	src := moduleSrc.Filter(dagger.DirectoryFilterOpts{Include: sources, Exclude: []string{"**/*_test.go", "**/testdata/"}})
	bin := builder.
		WithEnvVariable("CGO_ENABLED", "0").
		WithMountedDirectory("/shipyard-demo/src", src).
		WithWorkdir("/shipyard-demo/src").
		WithExec(gobuild.Args("/shipyard-demo/demo-server", Package)).
		File("/shipyard-demo/demo-server")
	return c.Container().
		WithFile(binary, bin, dagger.ContainerWithFileOpts{Permissions: 0o755}).
		WithExposedPort(GitHubPort).
		WithExposedPort(PyPIPort).
		WithExposedPort(GitPort).
		AsService(dagger.ContainerAsServiceOpts{Args: []string{binary,
			"-github-addr", fmt.Sprintf("0.0.0.0:%d", GitHubPort), "-pypi-addr", fmt.Sprintf("0.0.0.0:%d", PyPIPort),
			"-git-addr", fmt.Sprintf("0.0.0.0:%d", GitPort)}})
}

// Endpoints are the base URLs of the running demo, each ending in a slash.
type Endpoints struct {
	GitHubAPI string
	PyPI      string
	// Git is the demo's git host, where <owner>/<name>.git is fetched from. The engine
	// fetches, not this process, so it stays the service's own address.
	Git string
	// Service is the running demo, which a git fetch from Git names as its host
	// (Query.git's experimentalServiceHost).
	Service *dagger.Service
}

// Start starts svc (once per session: Dagger keeps one instance per service) and returns
// where this process reaches it.
func Start(ctx context.Context, svc *dagger.Service) (Endpoints, error) {
	started, err := svc.Start(ctx)
	if err != nil {
		return Endpoints{}, fmt.Errorf("starting the demo server: %w", err)
	}
	e := Endpoints{Service: started}
	for _, p := range []struct {
		port int
		url  *string
	}{{GitHubPort, &e.GitHubAPI}, {PyPIPort, &e.PyPI}, {GitPort, &e.Git}} {
		u, err := started.Endpoint(ctx, dagger.ServiceEndpointOpts{Port: p.port, Scheme: "http"})
		if err != nil {
			return Endpoints{}, fmt.Errorf("the demo server's port %d: %w", p.port, err)
		}
		*p.url = u + "/"
	}
	return e, nil
}
