// Package gobuild is how Shipyard builds the Go commands it runs in containers (the
// supplychain, registry and GitHub commands, the demo server): static (CGO_ENABLED=0),
// without the builder's paths, and without debug information, which nobody reads in a
// container and which costs about a fifth of a cold compile; for the commands of
// publishing and GitHub, in the Go image of the pins with Go caches of the call's trust
// level (Build); and how they run, each call a new exec (Run).
package gobuild

// Args is the go build command line that writes the binaries of pkgs to out (a folder
// ending in "/" when there are several).
func Args(out string, pkgs ...string) []string {
	return append([]string{"go", "build", "-trimpath", "-gcflags=all=-dwarf=false", "-ldflags=-s -w", "-o", out}, pkgs...)
}
