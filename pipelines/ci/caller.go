package ci

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"dagger.io/dagger"

	"dagger/shipyard/internal/pins"
)

// ErrShipyardTree is returned when a function that works on the caller's project was given
// Shipyard's own repository. --source defaults to the root of the module's own context: the
// caller's repository when Shipyard is installed there as a toolchain, but Shipyard's
// repository when it is called with -m github.com/<org>/shipyard, and CI would then test
// (and scan, and publish) the wrong project without a word.
var ErrShipyardTree = errors.New("the source is Shipyard's own repository, not your project: " +
	"with -m, --source defaults to the module's tree; pass --source=. from your checkout, " +
	"or install Shipyard as a toolchain (dagger toolchain install github.com/<org>/shipyard@<sha>) and call `dagger call shipyard <function>`")

// IsShipyardTree reports whether a tree is Shipyard's own repository: its dagger.json names
// the module "shipyard" and it holds the signing tool's module (supplychain/go.mod). A
// project that installs Shipyard as a toolchain has its own dagger.json, with another name.
func IsShipyardTree(daggerJSON []byte, hasSupplychain bool) bool {
	if !hasSupplychain || len(daggerJSON) == 0 {
		return false
	}
	var m struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(daggerJSON, &m); err != nil {
		return false
	}
	return m.Name == "shipyard"
}

// CheckCallerTree refuses Shipyard's own tree as the project to work on.
func CheckCallerTree(ctx context.Context, src *dagger.Directory) error {
	manifest, ok, err := readSourceFile(ctx, src, "dagger.json")
	if err != nil || !ok {
		return err
	}
	supplychain, err := src.Exists(ctx, "supplychain/go.mod")
	if err != nil {
		return fmt.Errorf("looking for supplychain/go.mod: %w", err)
	}
	if IsShipyardTree([]byte(manifest), supplychain) {
		return ErrShipyardTree
	}
	return nil
}

// RepositoryPins reads the overrides of the caller's pins file (pins.File), none when the
// tree has none: the images the repository owns, which Dependabot keeps current there.
func RepositoryPins(ctx context.Context, src *dagger.Directory) ([]string, error) {
	content, ok, err := readSourceFile(ctx, src, pins.File)
	if err != nil || !ok {
		return nil, err
	}
	return pins.ParseFile(pins.File, []byte(content))
}
