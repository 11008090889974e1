// Package githubcmd runs the GitHub command (cmd/github) for the module: its build, from
// the module's own source, and each of its runs. The module binary, which every job
// compiles before its first call, then links no GitHub client for what the command does.
//
// The token reaches the command only as a secret file mounted into its container. Every
// run reads GitHub, whose state is outside the graph, so a random value in its environment
// keeps the engine from answering it from its cache; the build is cached by the command's
// source alone (Sources), so a change elsewhere in the module rebuilds nothing.
//
// calls.go, a Client method for each of github.Calls, is generated from that interface.
package githubcmd

//go:generate go run ./gen -api ../github/api.go -out calls.go

import (
	"context"
	"errors"
	"fmt"

	"dagger.io/dagger"

	"dagger/shipyard/internal/gobuild"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/internal/wire"
)

// Package is the command, in the module.
const Package = "./cmd/github"

// packages are the module's folders the command is built from: its own and those it
// imports (a test holds this to go list).
var packages = []string{"cmd/github", "internal/fanout", "internal/github", "internal/githubclient", "internal/plainhttp", "internal/tokenmac", "internal/wire"}

// Sources are the patterns of the module's files the command's build reads.
func Sources() []string {
	out := []string{"go.mod", "go.sum"}
	for _, p := range packages {
		out = append(out, p+"/*.go")
	}
	return out
}

// Where the command's container finds its inputs.
const (
	binary    = "/usr/local/bin/github"
	tokenPath = "/run/secrets/github-token"
	cacheDir  = "/var/cache/shipyard-github"
)

// Build returns a container with the command, built from moduleSrc (the module's root) with
// the Go caches of level, and run, in the module's own runtime container. Every engine that
// runs the module has that container, with the Go that built the module from the same
// go.mod (so it builds the command too, whatever --pin go says, a pin the model flows also
// use for make) and the CA certificates the module's HTTPS calls need: no function that
// reads GitHub pulls an image for it, and --demo pulls none at all.
//
// The Go caches are those of the caller's Go pin too, as every cache volume is keyed by the
// pins: a call with its own pins never shares a volume with one with the defaults.
func Build(client *dagger.Client, moduleSrc *dagger.Directory, goPin string, level trust.Level) *dagger.Container {
	src := moduleSrc.Filter(dagger.DirectoryFilterOpts{Include: Sources(), Exclude: []string{"**/*_test.go"}})
	runtime := moduleSrc.AsModule().Runtime()
	out := gobuild.BuildIn(client, runtime, moduleRuntime+" "+goPin, src, level, Package)
	return runtime.WithWorkdir("/work").
		WithFile(binary, out.File("github"), dagger.ContainerWithFileOpts{Permissions: 0o755})
}

// moduleRuntime names the module's runtime container as a Go toolchain, in the names of
// the build's cache volumes.
const moduleRuntime = "shipyard-module-runtime"

// Command runs the GitHub command in Tool (from Build) against the API at API, as the
// token Token (anonymously when nil), keeping the ETag cache in Cache (none when nil): a
// volume of the caller's trust level, since what it holds decides what later calls see.
type Command struct {
	Tool  *dagger.Container
	API   string
	Token *dagger.Secret
	Cache *dagger.CacheVolume

	// viaLoopback: API is a service bound to Tool (the demo's), reached over plain HTTP.
	viaLoopback bool
}

// CacheVolume is the base name of the cache volume the command keeps GitHub's ETags in,
// one per trust level (trust.Level.CacheVolumeName).
const CacheVolume = "shipyard-github-etags"

// demoHost is the demo server's name in the command's container.
const demoHost = "shipyard-demo"

// WithDemo is c reaching GitHub's API on port of the demo server svc, bound to the
// command's container, instead of API: --demo answers from it, without a token.
func (c Command) WithDemo(svc *dagger.Service, port int) Command {
	c.Tool = c.Tool.WithServiceBinding(demoHost, svc)
	c.API = fmt.Sprintf("http://%s:%d/", demoHost, port)
	c.Token, c.Cache, c.viaLoopback = nil, nil, true
	return c
}

// Error is a failed run of the command: its message, which never holds the token.
type Error struct {
	Message string

	usage bool // the command refused its command line: it called nothing
}

func (e *Error) Error() string { return e.Message }

// exitError is the Error of a run that exited with xe.
func exitError(xe *gobuild.ExitError) *Error {
	return &Error{Message: xe.Message, usage: xe.Code == wire.ExitUsage}
}

// runInput runs `github cmd args…` with stdin and returns its stdout; a failed run is a
// *gobuild.ExitError.
func (c Command) runInput(ctx context.Context, stdin, cmd string, args ...string) (string, error) {
	if c.Tool == nil {
		return "", errors.New("no GitHub command container")
	}
	ctr := c.Tool
	argv := []string{"github", cmd, "--api", c.API}
	if c.viaLoopback {
		argv = append(argv, "--via-loopback")
	}
	if c.Token != nil {
		ctr = ctr.WithMountedSecret(tokenPath, c.Token)
		argv = append(argv, "--token-file", tokenPath)
	}
	if c.Cache != nil && (cmd == "call" || cmd == "batch") {
		ctr = ctr.WithMountedCache(cacheDir, c.Cache)
		argv = append(argv, "--cache-dir", cacheDir)
	}
	// The flags first: call's method is an argument, after which none is read.
	return gobuild.RunInput(ctx, ctr, "SHIPYARD_GITHUB_RUN", append(argv, args...), stdin)
}
