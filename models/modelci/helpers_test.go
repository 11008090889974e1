package modelci

import (
	"context"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/models/modelenv"
	"encoding/base64"
	"strings"
	"testing"

	"dagger.io/dagger"
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

// serveDistributions programs the double so that the build of a container whose chain
// contains chain (any, when empty) lists the two archives in /dist and reads them back as
// the graph's base64 files do: the real bytes of dist, built by the test.
func serveDistributions(e *engine.Engine, chain string, dist fixtures.Distributions) {
	e.OnEntries(engine.DirRule{Path: modelenv.DistDir, ChainContains: chain, Entries: []string{dist.SdistName, dist.WheelName}})
	e.OnFile(engine.FileRule{Path: modelenv.EncodedDir + "/" + dist.WheelName + ".b64", ChainContains: chain, Contents: base64.StdEncoding.EncodeToString(dist.Wheel)})
	e.OnFile(engine.FileRule{Path: modelenv.EncodedDir + "/" + dist.SdistName + ".b64", ChainContains: chain, Contents: base64.StdEncoding.EncodeToString(dist.Sdist)})
}

// hostRepo is the model repository fixture, with changes, as a directory of the double.
func hostRepo(t *testing.T, env modelenv.Env, changes map[string]string) *dagger.Directory {
	t.Helper()
	return env.Client.Host().Directory(fixtures.ModelRepo(t, changes))
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

func execArgs(e *engine.Engine) []string {
	var out []string
	for _, x := range e.Graph().Execs() {
		out = append(out, strings.Join(x.Args, " "))
	}
	return out
}

func hasExec(e *engine.Engine, args string) bool {
	for _, a := range execArgs(e) {
		if a == args {
			return true
		}
	}
	return false
}
