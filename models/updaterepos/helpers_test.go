package updaterepos

import (
	"context"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/internal/testkit/githubsim"
	"dagger/shipyard/models/genrepo"
	"dagger/shipyard/models/modelenv"
	"encoding/base64"
	"strings"
	"testing"
)

// modelExecs are the commands of the model flows (render, generate, check, build, read
// the archives), which succeed unless a test says otherwise; the engine is strict, so any
// other command fails the test.
var modelExecs = flowexecs.Model()

// newEnv starts a strict engine double, expecting the model flows' commands, and an Env
// connected to it.
func newEnv(t *testing.T, opts ...engine.Option) (modelenv.Env, *engine.Engine) {
	t.Helper()
	e := engine.New(t, append([]engine.Option{engine.StrictExecs()}, opts...)...)
	e.ExpectExecs(modelExecs...)
	return modelenv.NewEnv(e.Client(context.Background())), e
}

// serveGenerated programs the double so that ReadGenerated, on a container whose chain
// contains chain (any, when empty), finds the archive of files (see fixtures.RepoArchive)
// in two pieces.
func serveGenerated(t *testing.T, e *engine.Engine, chain string, files, modes map[string]string) {
	t.Helper()
	text := base64.StdEncoding.EncodeToString(fixtures.RepoArchive(t, files, modes))
	half := len(text) / 2
	e.OnEntries(engine.DirRule{Path: genrepo.ArchiveDir, ChainContains: chain, Entries: []string{genrepo.ArchivePiece + "0000", genrepo.ArchivePiece + "0001"}})
	e.OnFile(engine.FileRule{Path: genrepo.ArchiveDir + "/" + genrepo.ArchivePiece + "0000", ChainContains: chain, Contents: text[:half]})
	e.OnFile(engine.FileRule{Path: genrepo.ArchiveDir + "/" + genrepo.ArchivePiece + "0001", ChainContains: chain, Contents: text[half:]})
}

func noSecrets(t *testing.T, e *engine.Engine) {
	t.Helper()
	g := e.Graph()
	if len(g.Secrets()) > 0 {
		t.Errorf("the graph created secrets: %v", g.Secrets())
	}
	for _, x := range g.Execs() {
		if len(x.Secrets) > 0 {
			t.Errorf("exec %v received secrets %v", x.Args, x.Secrets)
		}
	}
}

// changes are the writes a run sent GitHub but those that change nothing: asking for
// release notes, which a run that writes does first to learn whether its token may
// (github.ProbeContentsWrite), and GitHub saves nothing of.
func changes(sim *githubsim.Server) []githubsim.Request {
	var out []githubsim.Request
	for _, r := range sim.Writes() {
		if !strings.HasSuffix(r.Path, "/releases/generate-notes") {
			out = append(out, r)
		}
	}
	return out
}
