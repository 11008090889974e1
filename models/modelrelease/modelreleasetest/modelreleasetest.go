// Package modelreleasetest programs the engine double for the model graphs of package
// modelrelease, whose commands (cookiecutter, uv build) produce files the double cannot
// know: tests give what a real run would have produced.
package modelreleasetest

import (
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/modelrelease"
)

// ServeDistributions makes every build whose chain contains chain ("" for any) list the
// two archives in modelenv.DistDir and read them back, base64-encoded as the graph
// reads them, as the real bytes of dist.
func ServeDistributions(e *engine.Engine, chain string, dist fixtures.Distributions) {
	e.OnEntries(engine.DirRule{Path: modelenv.DistDir, ChainContains: chain, Entries: []string{dist.SdistName, dist.WheelName}})
	for name, data := range map[string][]byte{dist.WheelName: dist.Wheel, dist.SdistName: dist.Sdist} {
		e.OnFile(engine.FileRule{
			Path:          modelenv.EncodedDir + "/" + name + ".b64",
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

// RenderOneFolder makes every make gen-repo-<name> render one repository folder, as the
// Cloudcoil template does, holding the model repository fixture's files.
func RenderOneFolder(e *engine.Engine) {
	e.OnEntries(engine.DirRule{Path: modelrelease.RenderDir, Entries: []string{"models-rendered/"}})
	ServeRendered(e, "models-rendered", modelRepoFiles())
}

// ServeRendered makes the repository make gen-repo-<name> writes to output/<folder> hold
// files (path → contents): its folders list them and each reads back, as an exec's output
// does on a real engine.
func ServeRendered(e *engine.Engine, folder string, files map[string]string) {
	dirs := map[string][]string{}
	for p, content := range files {
		e.OnFile(engine.FileRule{Path: "output/" + folder + "/" + p, ChainContains: "gen-repo-", Contents: content})
		for child := p; ; {
			parent := path.Dir(child)
			entry := path.Base(child)
			if child != p {
				entry += "/"
			}
			if !slices.Contains(dirs[parent], entry) {
				dirs[parent] = append(dirs[parent], entry)
			}
			if parent == "." {
				break
			}
			child = parent
		}
	}
	for d, entries := range dirs {
		slices.Sort(entries)
		p := modelrelease.RenderDir + "/" + folder
		if d != "." {
			p += "/" + d
		}
		e.OnEntries(engine.DirRule{Path: p, ChainContains: "gen-repo-", Entries: entries})
	}
}

// modelRepoFiles reads the model repository fixture, which sits beside this package's
// source in the repository.
func modelRepoFiles() map[string]string {
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(here), "..", "..", "..", "internal", "testkit", "fixtures", "modelrepo")
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		panic(fmt.Sprintf("model repository fixture: %v", err)) // part of the repository
	}
	return files
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
