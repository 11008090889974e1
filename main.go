// Shipyard is the CI and release engine of tesk-core and the Cloudcoil model packages.
package main

import (
	"dagger/shipyard/internal/dagger"
)

// Shipyard holds the arguments shared by every function.
type Shipyard struct {
	// +private
	Source *dagger.Directory
}

// New configures Shipyard.
func New(
	// The repository to work on.
	// +defaultPath="/"
	// +optional
	source *dagger.Directory,
) *Shipyard {
	return &Shipyard{Source: source}
}
