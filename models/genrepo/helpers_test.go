package genrepo

import (
	"context"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/models/modelenv"
	"encoding/base64"
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

// serveDistributions programs the double so that the build of a container whose chain
// contains chain (any, when empty) lists the two archives in /dist and reads them back as
// the graph's base64 files do: the real bytes of dist, built by the test.
func serveDistributions(e *engine.Engine, chain string, dist fixtures.Distributions) {
	e.OnEntries(engine.DirRule{Path: modelenv.DistDir, ChainContains: chain, Entries: []string{dist.SdistName, dist.WheelName}})
	e.OnFile(engine.FileRule{Path: modelenv.EncodedDir + "/" + dist.WheelName + ".b64", ChainContains: chain, Contents: base64.StdEncoding.EncodeToString(dist.Wheel)})
	e.OnFile(engine.FileRule{Path: modelenv.EncodedDir + "/" + dist.SdistName + ".b64", ChainContains: chain, Contents: base64.StdEncoding.EncodeToString(dist.Sdist)})
}
func lockWith(cloudcoil string) string {
	return `version = 1

[[package]]
name = "cloudcoil"
version = "` + cloudcoil + `"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "cloudcoil-models-keda"
version = "2.16.1.0"
source = { editable = "." }
`
}
