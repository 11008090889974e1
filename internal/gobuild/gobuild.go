// Package gobuild is how Shipyard builds the Go commands it runs in containers (the
// supplychain and registry commands, the demo server): static (the callers set
// CGO_ENABLED=0), without the builder's paths, and without debug information, which
// nobody reads in a container and which costs about a fifth of a cold compile.
package gobuild

// Args is the go build command line that writes the binaries of pkgs to out (a folder
// ending in "/" when there are several).
func Args(out string, pkgs ...string) []string {
	return append([]string{"go", "build", "-trimpath", "-gcflags=all=-dwarf=false", "-ldflags=-s -w", "-o", out}, pkgs...)
}
