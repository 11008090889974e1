// Package modelreleasetest programs the engine double for the model graphs of package
// modelrelease, whose commands (cookiecutter, uv build) produce files the double cannot
// know: tests give what a real run would have produced.
package modelreleasetest

import (
	"encoding/base64"
	"fmt"
	"testing"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models/modelrelease"
)

// ServeDistributions makes every build whose chain contains chain ("" for any) list the
// two archives in modelrelease.DistDir and read them back, base64-encoded as the graph
// reads them, as the real bytes of dist.
func ServeDistributions(e *engine.Engine, chain string, dist fixtures.Distributions) {
	e.OnEntries(engine.DirRule{Path: modelrelease.DistDir, ChainContains: chain, Entries: []string{dist.SdistName, dist.WheelName}})
	for name, data := range map[string][]byte{dist.WheelName: dist.Wheel, dist.SdistName: dist.Sdist} {
		e.OnFile(engine.FileRule{
			Path:          modelrelease.EncodedDir + "/" + name + ".b64",
			ChainContains: chain,
			Contents:      base64.StdEncoding.EncodeToString(data),
		})
	}
}

// VersionChain is what the chain of a release build of version contains: its
// pyproject.toml with the version set, as the double quotes it.
func VersionChain(version string) string {
	return fmt.Sprintf(`version = \"%s\"`, version)
}

// RenderOneFolder makes every cookiecutter run render one repository folder, as the
// Cloudcoil template does.
func RenderOneFolder(e *engine.Engine) {
	e.OnEntries(engine.DirRule{Path: modelrelease.RenderDir, Entries: []string{"models-rendered/"}})
}

// ServeGenerated makes the archive update-repos reads of a generated repository, on a
// container whose chain contains chain ("" for any), the archive of files with modes
// (fixtures.RepoArchive), as one piece.
func ServeGenerated(t testing.TB, e *engine.Engine, chain string, files, modes map[string]string) {
	t.Helper()
	piece := modelrelease.ArchivePiece + "0000"
	e.OnEntries(engine.DirRule{Path: modelrelease.ArchiveDir, ChainContains: chain, Entries: []string{piece}})
	e.OnFile(engine.FileRule{Path: modelrelease.ArchiveDir + "/" + piece, ChainContains: chain,
		Contents: base64.StdEncoding.EncodeToString(fixtures.RepoArchive(t, files, modes))})
}
