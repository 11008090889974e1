package main

import (
	"context"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/pins"
	"dagger/shipyard/pipelines/ci"
)

// The images a call pins: Shipyard's, --pin overrides, and a repository's own.

// pins are the images Shipyard runs, with the caller's --pin overrides.
func (m *Shipyard) pins() (pins.Pins, error) {
	return m.pinsWith(nil)
}

// pinsWith are the images Shipyard runs for a tree whose pins file sets repository: the
// defaults, then the file's, then --pin, which a caller gives for one run and so wins.
func (m *Shipyard) pinsWith(repository []string) (pins.Pins, error) {
	return pins.ForTree(repository, m.Pin)
}

// treePins are the pins for the caller's tree src: its pins file's, then --pin.
func (m *Shipyard) treePins(ctx context.Context, src *sdk.Directory) (pins.Pins, error) {
	repository, err := ci.RepositoryPins(ctx, src)
	if err != nil {
		return pins.Pins{}, err
	}
	return m.pinsWith(repository)
}
