package publish_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"dagger.io/dagger"

	"dagger/shipyard/internal/flow/flowtest"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/ci/artifact"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

func TestMain(m *testing.M) { os.Exit(publishtest.Main(m)) }

const (
	org         = "elixircloud"
	sha         = "0123456789abcdef0123456789abcdef01234567"
	cleanReport = `{"SchemaVersion": 2, "Results": []}`
)

var imageNames = []string{"filer", "taskmaster"}

// pinnedBase is filer's base image pinned by digest, as Dependabot keeps tesk-core's.
var pinnedBase = "docker.io/library/python:3.12-alpine@sha256:" + strings.Repeat("c", 64)

var filerDockerfile = "FROM " + pinnedBase + " AS build\nARG SETUPTOOLS_SCM_PRETEND_VERSION\nWORKDIR /src\nCOPY . .\n" +
	"RUN pip wheel --no-deps --wheel-dir /wheels .\n\nFROM " + pinnedBase + "\nCOPY --from=build /wheels /wheels\n" +
	"RUN pip install --no-cache-dir /wheels/*.whl\nENTRYPOINT [\"filer\"]\n"

// publishExecs are the commands around the supplychain tool (whose execs run the real
// command) that publishing runs; they succeed unless a test says otherwise, and the engine
// is strict, so any other command fails the test.
var publishExecs = flowexecs.Publish()

// env is one engine (one CI job, or one run) in a world that outlives it: re-runs get a
// fresh env on the same world, as a re-run job gets a fresh engine.
type env struct {
	w       *publishtest.World
	e       *engine.Engine
	c       *dagger.Client
	p       *ci.Pipeline
	scanner publish.Scanner
	// images are the pipeline's images as publishing's artifacts.
	images []publish.Artifact
	target publish.Target
	sign   publish.SignInputs
	dev    publish.BranchConfig
}

func newEnv(t testing.TB, w *publishtest.World, opts ...engine.Option) *env {
	t.Helper()
	ctx := context.Background()
	e := engine.New(t, append([]engine.Option{engine.StrictExecs()}, opts...)...)
	e.ExpectExecs(publishExecs...)
	c := e.Client(ctx)
	w.Install(t, e, imageNames...)
	for _, n := range imageNames {
		e.OnFile(engine.FileRule{Path: "/out/" + n + ".json", Contents: cleanReport})
		e.OnFile(engine.FileRule{Path: "/out/" + n + ".sarif", Contents: flowexecs.CleanSARIF})
	}
	p := ci.New(c, c.Host().Directory(fixtures.TeskCore(t, map[string]string{"containers/filer.Dockerfile": filerDockerfile})))
	images, err := p.Images(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	target := publish.Target{
		Registry: w.Registry.Host, Org: org, Username: w.Username,
		Password:     c.SetSecret(publishtest.RegistryPasswordSecret, w.Password),
		RegistryTool: publish.BuildRegistryTool(c, c.Host().Directory(publishtest.SupplychainSource(t)), pins.DefaultPins(), trust.ReleaseAt("test", trust.SecretOf("test-credential"))),
		Tags:         artifact.Tags(),
	}
	sign := publish.SignInputs{
		Tool:        publish.BuildTool(c, c.Host().Directory(publishtest.SupplychainSource(t)), pins.DefaultPins(), trust.ReleaseAt("test", trust.SecretOf("test-credential"))),
		OIDCToken:   c.SetSecret(publishtest.OIDCTokenSecret, w.Token),
		FulcioURL:   w.Sigstore.URL,
		RekorURL:    w.Sigstore.URL,
		TrustedRoot: c.Host().File(w.Sigstore.TrustedRoot),
		Provenance: publish.Origin{
			SourceRepository: "https://github.com/elixir-cloud-aai/tesk-core",
			GitHub: map[string]string{
				"GITHUB_SERVER_URL":   "https://github.com",
				"GITHUB_REPOSITORY":   "elixir-cloud-aai/tesk-core",
				"GITHUB_WORKFLOW_REF": publishtest.WorkflowRef,
				"GITHUB_EVENT_NAME":   "push",
				"GITHUB_RUN_ID":       "4242",
				"GITHUB_RUN_ATTEMPT":  "1",
				"RUNNER_ENVIRONMENT":  "github-hosted",
			},
		}.Provenance("refs/heads/dev", sha),
	}
	arts := artifact.Of(images)
	return &env{w: w, e: e, c: c, p: p, scanner: artifact.Scanner(p), images: arts, target: target, sign: sign,
		dev: publish.BranchConfig{Flow: "publish-dev", Source: p.Source, Scanner: artifact.Scanner(p), Images: arts, Target: target, Signing: sign, BranchOrder: newestCommit}}
}

// newestCommit is the commit-order recheck of a dev branch whose newest commit is always
// the one being published (the module's tests run the GitHub one).
func newestCommit(_ context.Context, commit string) (publish.BranchHistory, error) {
	return publish.BranchHistory{Commit: commit, OnBranch: true, Complete: true}, nil
}

func (v *env) repo(name string) string { return v.w.Registry.Host + "/" + org + "/tesk-core-" + name }

// pushed pushes every image and returns them.
func (v *env) pushed(t *testing.T) []publish.Pushed {
	t.Helper()
	out, err := publish.PushByDigest(context.Background(), "push-by-digest", v.images, v.target)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tags is the tag state of every image's repository.
func (v *env) tags(t *testing.T) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, n := range imageNames {
		out[n] = v.w.Registry.Tags(t, v.repo(n))
	}
	return out
}

// referrers counts the referrers of each image's current digest in the world.
func (v *env) referrers(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, n := range imageNames {
		out[n] = v.w.Registry.Referrers(t, v.repo(n), v.w.Digest(t, n))
	}
	return out
}

// noSecrets fails if any secret value (or a 12-byte piece of one) is in any of texts or in
// the recorded graph.
func (v *env) noSecrets(t *testing.T, texts ...string) {
	t.Helper()
	all := append([]string{v.e.Graph().String()}, texts...)
	for _, s := range v.w.SecretValues() {
		for i := 0; i+12 <= len(s); i += 4 {
			for _, text := range all {
				if strings.Contains(text, s[i:i+12]) {
					t.Fatalf("secret bytes leaked into %.200q", text)
				}
			}
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// requireAloneNamed fails t unless err, a failure of step run alone (publish.Sign, say),
// names check-inputs or that step, once, and no other step.
func requireAloneNamed(t testing.TB, err error, step string) {
	t.Helper()
	flowtest.RequireNamed(t, err, []string{publish.StepInputs, step}, publish.StepNames())
}
