package gobuild

import (
	"dagger.io/dagger"

	"dagger/shipyard/internal/trust"
)

// Cache volumes of the Go builds: modules and compiled packages, shared by the builds of one
// trust level and one Go image (a command built with them may later hold a token or a
// registry password, so a pull request's build never writes what a release's reads).
const (
	modCacheVolume   = "shipyard-go-mod"
	buildCacheVolume = "shipyard-go-build"
)

// Build compiles the commands pkgs (e.g. ./cmd/registry) of the Go module in src into the
// returned folder, one binary each named after its folder, in image, with the Go caches of
// level's class and that image. Dagger caches the build by its inputs: src should hold only
// what the commands are built from.
func Build(client *dagger.Client, src *dagger.Directory, image string, level trust.Level, pkgs ...string) *dagger.Directory {
	return BuildIn(client, client.Container().From(image), image, src, level, pkgs...)
}

// BuildIn is Build in the container base, a Go toolchain named toolchain in the caches'
// names (an image, or another name that tells toolchains apart).
func BuildIn(client *dagger.Client, base *dagger.Container, toolchain string, src *dagger.Directory, level trust.Level, pkgs ...string) *dagger.Directory {
	return base.
		// Where the caches are mounted, whatever GOPATH and HOME the toolchain's image sets.
		WithEnvVariable("GOMODCACHE", modCachePath).
		WithEnvVariable("GOCACHE", buildCachePath).
		WithMountedCache(modCachePath, client.CacheVolume(level.BuildCacheVolumeName(modCacheVolume, toolchain))).
		WithMountedCache(buildCachePath, client.CacheVolume(level.BuildCacheVolumeName(buildCacheVolume, toolchain))).
		WithEnvVariable("CGO_ENABLED", "0").
		WithDirectory("/src", src).
		WithWorkdir("/src").
		WithExec(Args("/out/", pkgs...)).
		Directory("/out")
}

// Where the Go caches are mounted.
const (
	modCachePath   = "/go/pkg/mod"
	buildCachePath = "/root/.cache/go-build"
)

// Runner is a fresh container of image to run built commands in: no source, no caches, only
// what is added (and the image's CA certificates, for the services the commands reach).
func Runner(client *dagger.Client, image string) *dagger.Container {
	return client.Container().From(image).WithWorkdir("/work")
}
