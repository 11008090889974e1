package release

import (
	"bytes"
	"context"
	"dagger/shipyard/internal/buildplatform"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"dagger.io/dagger"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/internal/testkit/teskrepo"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/ci/artifact"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
	"dagger/shipyard/pipelines/releasegate"
)

func TestMain(m *testing.M) { os.Exit(publishtest.Main(m)) }

// Image names of tesk-core, as containers/<name>.Dockerfile names them.
var teskImages = []string{"filer", "taskmaster"}

const org = "elixircloud"

// world is the release rehearsed offline: tesk-core in the GitHub simulator, a real OCI
// registry, the test Sigstore with the real supplychain command, and an engine double that
// serves the tagged trees. Each run gets a fresh engine, as a re-run of a workflow job gets
// a fresh runner; GitHub, the registry and Sigstore keep their state.
type world struct {
	t    *testing.T
	repo *teskrepo.Repo
	pub  *publishtest.World
	e    *engine.Engine
	c    *dagger.Client
	log  safeBuffer
	// program runs on each fresh engine, for a test's faults.
	program func(e *engine.Engine)
	// engineOpts configure each fresh engine (e.g. its exec latency).
	engineOpts []engine.Option
	// platforms, when set, build every image for each and publish one index.
	platforms []dagger.Platform
}

func newWorld(t *testing.T, opts teskrepo.Options) *world {
	t.Helper()
	w := &world{t: t, repo: teskrepo.New(t, opts), pub: publishtest.NewWorld(t)}
	w.freshEngine()
	return w
}

// releaseExecs are the commands a release runs besides the supplychain tool (whose execs
// run the real command) and the version probe of teskrepo: the tool's build and the Trivy
// scan of each image. They succeed unless a test says otherwise; the engine is strict, so
// any other command fails the test.
var releaseExecs = flowexecs.Publish()

// scanExecs are the commands of the scan job alone.
var scanExecs = flowexecs.Scan()

// freshEngine starts a new engine and programs it as a runner sees the world: the tagged
// trees, images that report the version they were built with, clean scans, and the real
// supplychain command.
func (w *world) freshEngine() {
	w.t.Helper()
	w.e = engine.New(w.t, append([]engine.Option{engine.StrictExecs()}, w.engineOpts...)...)
	w.e.ExpectExecs(releaseExecs...)
	w.c = w.e.Client(context.Background())
	w.pub.Install(w.t, w.e, teskImages...)
	teskrepo.ReportBuiltVersion(w.e)
	for _, name := range teskImages {
		w.e.OnFile(engine.FileRule{Path: "/out/" + name + ".json", Contents: `{"SchemaVersion": 2, "Results": []}`})
		w.e.OnFile(engine.FileRule{Path: "/out/" + name + ".sarif", Contents: flowexecs.CleanSARIF})
	}
	if len(w.platforms) > 0 {
		var names []string
		for _, p := range w.platforms {
			names = append(names, string(p))
		}
		w.pub.InstallPlatforms(w.t, w.e, names, teskImages...)
		for _, name := range teskImages {
			for _, p := range w.platforms {
				w.e.OnFile(engine.FileRule{Path: "/out/" + ci.ReportFile(buildplatform.TargetName(name, p)) + ".json", Contents: `{"SchemaVersion": 2, "Results": []}`})
				w.e.OnFile(engine.FileRule{Path: "/out/" + ci.ReportFile(buildplatform.TargetName(name, p)) + ".sarif", Contents: flowexecs.CleanSARIF})
			}
		}
	}
	if w.program != nil {
		w.program(w.e)
	}
}

// serve teaches the engine every tag the repository has now.
func (w *world) serve(tags ...string) {
	for _, tag := range tags {
		w.repo.ServeTree(w.e, tag)
	}
}

func (w *world) config() Config {
	w.t.Helper()
	c := w.c
	password := c.SetSecret(publishtest.RegistryPasswordSecret, w.pub.Password)
	return Config{
		Flow:   "release",
		Client: c,
		GitHub: w.repo.Client(w.t, teskrepo.Token),
		Repo:   teskrepo.FullName,
		Gates:  releasegate.Config{ImageOrg: org},
		GitURL: teskrepo.GitURL,
		Images: ImageConfig{
			Target: publish.Target{
				Registry: w.pub.Registry.Host, Org: org,
				Username: w.pub.Username, Password: password,
				RegistryTool: publish.BuildRegistryTool(c, c.Host().Directory(publishtest.SupplychainSource(w.t)), pins.DefaultPins(), trust.ReleaseAt("test", trust.SecretOf("test-credential"))),
				Tags:         artifact.Tags(),
			},
			Sign: publish.SignInputs{
				Tool:        publish.BuildTool(c, c.Host().Directory(publishtest.SupplychainSource(w.t)), pins.DefaultPins(), trust.ReleaseAt("test", trust.SecretOf("test-credential"))),
				OIDCToken:   c.SetSecret(publishtest.OIDCTokenSecret, w.pub.Token),
				FulcioURL:   w.pub.Sigstore.URL,
				RekorURL:    w.pub.Sigstore.URL,
				TrustedRoot: c.Host().File(w.pub.Sigstore.TrustedRoot),
			},
			Origin: publish.Origin{SourceRepository: "https://github.com/" + teskrepo.FullName,
				BuilderID: "https://github.com/elixir-cloud-aai/tesk-core/actions", BuildType: "https://shipyard.example/release/v1"},
		},
		Log:       func(format string, args ...any) { fmt.Fprintf(&w.log, format+"\n", args...) },
		Platforms: w.platforms,
	}
}

// run releases tag on the current engine.
func (w *world) run(tag string, opts Options) (Report, error) {
	w.t.Helper()
	w.serve(tag)
	rep, err := Run(context.Background(), w.config(), tag, opts)
	requireDeclaredStep(w.t, err, releaseSteps())
	return rep, err
}

// rerun releases tag again on a fresh engine.
func (w *world) rerun(tag string) (Report, error) {
	w.t.Helper()
	w.freshEngine()
	return w.run(tag, Options{})
}

func (w *world) repository(name string) string {
	return w.pub.Registry.Host + "/" + org + "/tesk-core-" + name
}

// tags reads every tag of an image from the registry, independently of the code under test.
func (w *world) tags(name string) map[string]string {
	return w.pub.Registry.Tags(w.t, w.repository(name))
}

// evidence counts the Sigstore bundles attached to a digest, by predicate.
func (w *world) evidence(name, digest string) (attestations, signatures int) {
	attestations, _, signatures = w.bundles(name, digest)
	return attestations, signatures
}

// bundles counts each kind of bundle a digest carries: provenance, SBOM, signature.
func (w *world) bundles(name, digest string) (provenance, sboms, signatures int) {
	for _, r := range w.pub.Registry.Referrers(w.t, w.repository(name), digest) {
		switch {
		case strings.Contains(r, "slsa.dev/provenance"):
			provenance++
		case strings.Contains(r, "cyclonedx.org/bom"):
			sboms++
		case strings.Contains(r, "cosign/sign"):
			signatures++
		}
	}
	return provenance, sboms, signatures
}

// secretValues are the values no output, error, log or recorded exec may contain.
func (w *world) secretValues() []string {
	return append(w.pub.SecretValues(), teskrepo.Token, teskrepo.ReadToken)
}

// assertNoSecrets checks texts and the engine's record of execs for every secret value.
func (w *world) assertNoSecrets(texts ...string) {
	w.t.Helper()
	graph := w.e.Graph().String()
	for _, s := range w.secretValues() {
		for _, text := range append(texts, w.log.String(), graph) {
			if strings.Contains(text, s) {
				w.t.Fatalf("a secret value reached an output, error, log or exec record")
			}
		}
	}
}

// ghWrites counts the requests that changed GitHub.
func (w *world) ghWrites() int {
	n := 0
	for _, r := range w.repo.Sim.Writes() {
		// Generating notes is a POST that saves nothing.
		if !strings.HasSuffix(r.Path, "/releases/generate-notes") && r.Status < 400 {
			n++
		}
	}
	return n
}

// registryWrites counts successful state-changing registry requests so far.
func (w *world) registryWrites() int { return len(w.pub.Registry.Writes()) }

// releasesOf returns the GitHub releases of a tag.
func (w *world) releasesOf(tag string) []githubsim.Release { return w.repo.ReleasesOf(tag) }

// safeBuffer is a log written from concurrent steps.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// versionRule makes the image built from dockerfile report version as its package's.
func versionRule(dockerfile, version string) engine.ExecRule {
	return engine.ExecRule{
		ArgsContain: "importlib.metadata",
		Match:       func(x engine.Exec) bool { return x.Build != nil && x.Build.Dockerfile == dockerfile },
		Stdout:      version + "\n",
	}
}
