package main

import (
	"context"
	"strings"
	"testing"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
)

// newModule connects a module to a fresh engine double through its own fields: the SDK
// client of pipelines/ and the module's generated client (here the stand-in) both point at
// it. No package state changes, so tests using it run in parallel. The engine is strict:
// each test declares the commands it expects (ciExecs, publishExecs, modelExecs), and any
// other fails it.
func newModule(t *testing.T, changes map[string]string, opts ...engine.Option) (*Shipyard, *engine.Engine) {
	t.Helper()
	e := engine.New(t, append([]engine.Option{engine.StrictExecs()}, opts...)...)
	c := e.Client(context.Background())
	src := c.Host().Directory(fixtures.TeskCore(t, changes))
	m := New(src, "elixir-cloud-aai/tesk-core", nil, "https://api.github.com/", "docker.io", "elixircloud", "", nil, nil)
	m.clients = clients{sdk: c, dag: c}
	return m, e
}

// glue is newModule for the model functions, which still reach the session through the
// package's dag and connectSDK: it points those at the engine double too. Tests using it
// do not run in parallel.
func glue(t *testing.T, changes map[string]string, opts ...engine.Option) (*Shipyard, *engine.Engine) {
	t.Helper()
	m, e := newModule(t, changes, opts...)
	c := m.clients.sdk
	prevDag, prevConnect := dag, connectSDK
	dag = c
	connectSDK = func(context.Context) (*sdk.Client, error) { return c, nil }
	t.Cleanup(func() { dag, connectSDK = prevDag, prevConnect })
	return m, e
}

// ciExecs are the commands of tesk-core's CI jobs, which succeed unless a test says
// otherwise (the same list as the ci package's tests).
var ciExecs = []string{
	// lint
	"git init -q 2>/dev/null || (apt-get update -qq && apt-get install -y -qq git >/dev/null && git init -q); git add -A",
	"uv run pre-commit run --all-files --show-diff-on-failure --color never",
	"uv lock --check",
	"uvx --from cffconvert==2.0.0 cffconvert --validate --infile CITATION.cff",
	// test, on each Python version
	"uv sync --frozen --extra dev",
	"uv run coverage run -m pytest",
	"uv run coverage report -m",
	"uv run coverage xml -o /out/coverage.xml",
	// docs
	"uv sync --frozen --extra docs --no-install-project",
	"uv run mkdocs build --strict --site-dir /site",
	// scan, of each image
	"trivy image --scanners vuln --format json --output /out/",
	"trivy convert --format sarif --output /out/",
	// e2e on k3s
	"sh -c for i in $(seq 1 180); do",
	"kubectl wait --for=condition=Ready nodes --all --timeout=180s",
	"kubectl apply -f tests/e2e/manifests/",
	"kubectl wait --for=condition=Ready pod/tesk-e2e-http --timeout=120s",
	"uv run pytest tests/e2e",
}

// publishExecs are the commands that publishing and releasing run besides the supplychain
// tool (whose execs publishtest runs for real): the tool's build and the Trivy scans.
var publishExecs = []string{
	"go build -trimpath -o /out/supplychain ./cmd/supplychain",
	"trivy image --scanners vuln --format json --output /out/",
	"trivy convert --format sarif --output /out/",
}

func cleanScans(e *engine.Engine) {
	for _, img := range []string{"taskmaster", "filer"} {
		e.OnFile(engine.FileRule{Path: "/out/" + img + ".json", Contents: `{"SchemaVersion": 2, "Results": []}`})
	}
}

func TestPrTitle(t *testing.T) {
	t.Parallel()
	m := New(nil, "", nil, "", "", "", "", nil, nil)
	if _, err := m.PrTitle("feat(filer)!: drop FTP"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.PrTitle("Feat: upper case"); err == nil || !strings.Contains(err.Error(), `Unknown release type "Feat"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestCiThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, e := newModule(t, nil)
	e.ExpectExecs(ciExecs...)
	cleanScans(e)
	out, err := m.Ci(ctx, "fix: retry uploads", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	summary, err := out.File("summary.md").Contents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(summary, "CI passed") || !strings.Contains(summary, "| Test (Python 3.13) | passed |") {
		t.Fatalf("summary:\n%s", summary)
	}
}

func TestCiFailsWithTheTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, e := newModule(t, nil)
	e.ExpectExecs(ciExecs...)
	cleanScans(e)
	e.OnExec(engine.ExecRule{ArgsContain: "mkdocs build", ExitCode: 1, Stderr: "ERROR - Doc file 'index.md' contains a link 'x.md', but the target is not found"})
	_, err := m.Ci(ctx, "", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "| Docs | failed |") {
		t.Fatalf("err = %v", err)
	}
}

func TestEachCIFunctionRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, e := newModule(t, nil)
	e.ExpectExecs(ciExecs...)
	cleanScans(e)
	if _, err := m.Lint(ctx); err != nil {
		t.Errorf("lint: %v", err)
	}
	cov, err := m.Test(ctx, []string{"3.12"}, nil)
	if err != nil {
		t.Fatalf("test: %v", err)
	}
	if entries, _ := cov.Entries(ctx); len(entries) != 1 || entries[0] != "3.12/" {
		t.Errorf("coverage entries %v", entries)
	}
	if _, err := m.Test(ctx, []string{"3.14"}, nil); err == nil || !strings.Contains(err.Error(), "--python-image 3.14=") {
		t.Errorf("unpinned version: %v", err)
	}
	if _, err := m.Test(ctx, []string{"3.14"}, []string{"3.14=python:3.14-slim@sha256:0123"}); err != nil {
		t.Errorf("pinned by flag: %v", err)
	}
	if _, err := m.Docs(ctx); err != nil {
		t.Errorf("docs: %v", err)
	}
	images, err := m.Images(ctx, "0.11.0")
	if err != nil || len(images) != 2 {
		t.Fatalf("images: %v %v", images, err)
	}
	if _, err := m.Scan(ctx, "0.11.0"); err != nil {
		t.Errorf("scan: %v", err)
	}
	if _, err := m.EndToEnd(ctx); err != nil {
		t.Errorf("e2e: %v", err)
	}
}

// --pin replaces a pinned image everywhere the module runs it; a malformed pin stops the
// function before anything runs.
func TestPinReplacesAPinnedImage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const uv = "mirror.example/astral-sh/uv:0.9.18@sha256:1111111111111111111111111111111111111111111111111111111111111111"
	m, e := newModule(t, nil)
	e.ExpectExecs(ciExecs...)
	m.Pin = []string{"uv=" + uv}
	if _, err := m.Lint(ctx); err != nil {
		t.Fatal(err)
	}
	images := strings.Join(e.Graph().Images(), "\n")
	if !strings.Contains(images, uv) || strings.Contains(images, "ghcr.io/astral-sh/uv") {
		t.Errorf("images pulled:\n%s", images)
	}

	m.Pin = []string{"uv=ghcr.io/astral-sh/uv:latest"}
	if _, err := m.Lint(ctx); err == nil || !strings.Contains(err.Error(), "not pinned by digest") {
		t.Errorf("an unpinned override: err = %v", err)
	}
}
