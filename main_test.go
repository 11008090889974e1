package main

import (
	"context"
	"dagger/shipyard/internal/buildplatform"
	"errors"
	"fmt"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"dagger/shipyard/internal/dagger"
	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/internal/testkit/githubexec"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/publish/publishtest"
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
	m := mustNew(t)(New(src, "elixir-cloud-aai/tesk-core", nil, "https://api.github.com/", "docker.io", "elixircloud", "", nil, nil, false))
	m.clients = clients{sdk: c, dag: c}
	return m, e
}

// openCall is m as a call of fn opens it (calling), for a test of the helpers a function
// reaches; a refused call fails t.
func openCall(t *testing.T, m *Shipyard, fn string) *Shipyard {
	t.Helper()
	d, err := functions.Of(fn)
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.opening(d)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// answerGitHub makes e run the real GitHub command for the module's github execs, against
// the API the module is given, with token as the secret github-token, and expect its build.
func answerGitHub(t *testing.T, e *engine.Engine, token string) *githubexec.Runs {
	t.Helper()
	e.ExpectExecs(flowexecs.GitHubTool)
	return githubexec.Answer(t, e, map[string]string{"github-token": token})
}

// ciExecs are the commands of tesk-core's CI jobs, which succeed unless a test says
// otherwise (the same list as the ci package's tests).
var ciExecs = flowexecs.CI()

// publishExecs are the commands that publishing and releasing run besides the supplychain
// tool (whose execs publishtest runs for real): the tool's build and the Trivy scans.
var publishExecs = flowexecs.Publish()

func cleanScans(e *engine.Engine) {
	for _, img := range []string{"taskmaster", "filer"} {
		e.OnFile(engine.FileRule{Path: "/out/" + img + ".json", Contents: `{"SchemaVersion": 2, "Results": []}`})
		e.OnFile(engine.FileRule{Path: "/out/" + img + ".sarif", Contents: flowexecs.CleanSARIF})
		for _, p := range ci.DefaultPlatforms() {
			e.OnFile(engine.FileRule{Path: "/out/" + ci.ReportFile(buildplatform.TargetName(img, p)) + ".json", Contents: `{"SchemaVersion": 2, "Results": []}`})
			e.OnFile(engine.FileRule{Path: "/out/" + ci.ReportFile(buildplatform.TargetName(img, p)) + ".sarif", Contents: flowexecs.CleanSARIF})
		}
	}
}

// published is the digest publishing name gives by default: the index of its images for
// ci.DefaultPlatforms.
func published(t *testing.T, w *publishtest.World, name string) string {
	t.Helper()
	return w.IndexDigest(t, name, defaultPlatforms())
}

func defaultPlatforms() []string {
	var out []string
	for _, p := range ci.DefaultPlatforms() {
		out = append(out, string(p))
	}
	return out
}

// installImages programs e with the images of filer and taskmaster as publishtest builds
// them, for the engine's platform and for each default platform.
func installImages(t *testing.T, w *publishtest.World, e *engine.Engine) {
	t.Helper()
	w.Install(t, e, "filer", "taskmaster")
	w.InstallPlatforms(t, e, defaultPlatforms(), "filer", "taskmaster")
}

// mustNew is the module New configures, or the test's end.
func mustNew(t *testing.T) func(*Shipyard, error) *Shipyard {
	return func(m *Shipyard, err error) *Shipyard {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
}

// The constructor refuses a bad --pin, so every function does, those that pull no image
// (pr-title) included: a misspelt name or an unpinned image never runs silently.
func TestConstructorRefusesABadPin(t *testing.T) {
	t.Parallel()
	const digest = "@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, pin := range []string{"trivy=notanimage", "nosuch=alpine" + digest, "python-3.12=python:3.12", "go=Golang/Go" + digest, "uv"} {
		m, err := New(nil, "", nil, "", "", "", "", nil, []string{pin}, false)
		if err == nil {
			t.Errorf("--pin %q: the constructor accepted it (%v)", pin, m.Pin)
			continue
		}
		for _, want := range []string{pin, pins.Names, pins.OverrideForm} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("--pin %q: %v\nlacks %q", pin, err, want)
			}
		}
	}
	good := []string{"trivy=registry.example/aquasec/trivy:0.69.3" + digest, "python-3.14=registry.example/python:3.14" + digest}
	if _, err := New(nil, "", nil, "", "", "", "", nil, good, false); err != nil {
		t.Errorf("--pin %v: %v", good, err)
	}
}

func TestPrTitle(t *testing.T) {
	t.Parallel()
	m := mustNew(t)(New(nil, "", nil, "", "", "", "", nil, nil, false))
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
	out, err := m.Ci(ctx, "fix: retry uploads", nil, nil, "all", "default")
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

// A failing job no longer makes ci return an error and lose the artifacts (issue 15): the
// directory comes back with the table and a failing verdict, for the wrapper to fail on
// after exporting.
func TestCiFailsWithTheTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, e := newModule(t, nil)
	e.ExpectExecs(ciExecs...)
	cleanScans(e)
	e.OnExec(engine.ExecRule{ArgsContain: "mkdocs build", ExitCode: 1, Stderr: "ERROR - Doc file 'index.md' contains a link 'x.md', but the target is not found"})
	out, err := m.Ci(ctx, "", nil, nil, "all", "default")
	if err != nil {
		t.Fatal(err)
	}
	summary, err := out.File("summary.md").Contents(ctx)
	if err != nil || !strings.Contains(summary, "| Docs | failed |") || !strings.Contains(summary, "CI failed") {
		t.Fatalf("summary.md = %q, %v", summary, err)
	}
	v := readVerdict(t, out)
	if v.Passed || len(v.Failures) != 1 || !strings.HasPrefix(v.Failures[0], "Docs: ") {
		t.Fatalf("verdict %+v", v)
	}
	// The other jobs' reports are there.
	for _, f := range []string{"coverage/3.13/coverage.xml", "scan/filer/filer.json", "scan/taskmaster/verdict.json"} {
		if _, err := out.File(f).Sync(ctx); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// readVerdict reads verdict.json from a directory a function returned.
func readVerdict(t *testing.T, dir *dagger.Directory) ci.Verdict {
	t.Helper()
	s, err := dir.File(ci.VerdictFile).Contents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	v, err := ci.ParseVerdict([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Test and scan keep their reports when their verdict fails; their checks fail.
func TestFailingVerdictsKeepTheReports(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, e := newModule(t, nil)
	e.ExpectExecs(ciExecs...)
	e.OnExec(engine.ExecRule{ArgsContain: "coverage run -m pytest", ExitCode: 1, Stdout: "FAILED tests/unit/test_filer.py::test_upload - OSError\n"})
	e.OnFile(engine.FileRule{Path: "/out/taskmaster.json", Contents: string(corpus.Read(t, "trivy", "debian-buster.json"))})
	e.OnFile(engine.FileRule{Path: "/out/filer.json", Contents: `{"SchemaVersion": 2, "Results": []}`})
	e.OnFile(engine.FileRule{Path: "/out/taskmaster.sarif", Contents: string(corpus.Read(t, "trivy", "alpine-310.sarif"))})

	cov, err := m.Test(ctx, []string{"3.12"}, nil, "all")
	if err != nil {
		t.Fatalf("test: %v", err)
	}
	if v := readVerdict(t, cov); v.Passed || !strings.Contains(v.Failures[0], "Python 3.12: FAILED tests/unit/test_filer.py::test_upload") {
		t.Errorf("test verdict %+v", v)
	}
	if out, err := cov.File("3.12/pytest.txt").Contents(ctx); err != nil || !strings.Contains(out, "OSError") {
		t.Errorf("3.12/pytest.txt = %q, %v", out, err)
	}
	if _, err := cov.File("3.12/coverage.xml").Sync(ctx); err != nil {
		t.Errorf("coverage.xml: %v", err)
	}
	if _, err := m.TestCheck(ctx); err == nil || !strings.Contains(err.Error(), "test_upload") {
		t.Errorf("test-check: %v", err)
	}

	scan, err := m.Scan(ctx, "0.11.0", "")
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	if v := readVerdict(t, scan); v.Passed {
		t.Errorf("scan verdict %+v", v)
	}
	for _, f := range []string{"taskmaster.json", "taskmaster.sarif", "filer.json", "summary.txt"} {
		if _, err := scan.File(f).Sync(ctx); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// One image alone, as the workflow's job per image scans it.
	filer, err := m.Scan(ctx, "0.11.0", "filer")
	if err != nil {
		t.Fatal(err)
	}
	if v := readVerdict(t, filer); !v.Passed {
		t.Errorf("filer alone: %+v", v)
	}
	if summary, _ := filer.File("summary.txt").Contents(ctx); !strings.Contains(summary, "== filer") || strings.Contains(summary, "taskmaster") {
		t.Errorf("the scan of filer alone:\n%s", summary)
	}
	if _, err := m.ScanCheck(ctx); err == nil || !strings.Contains(err.Error(), "image taskmaster has fixable CRITICAL or HIGH vulnerabilities") {
		t.Errorf("scan-check: %v", err)
	}
}

// With -m, --source defaults to Shipyard's own repository: every function that needs the
// caller's tree refuses it, and says what to do. The tesk-core fixture, with Shipyard
// installed there as a toolchain, is accepted.
func TestShipyardsOwnTreeIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	own := map[string]string{
		"dagger.json":        `{"name": "shipyard", "engineVersion": "v0.21.8", "sdk": {"source": "go"}}`,
		"supplychain/go.mod": "module dagger/shipyard/supplychain\n",
	}
	m, _ := newModule(t, own)
	for name, call := range map[string]func() error{
		"lint":            func() error { _, err := m.Lint(ctx); return err },
		"test":            func() error { _, err := m.Test(ctx, nil, nil, "all"); return err },
		"scan":            func() error { _, err := m.Scan(ctx, "", ""); return err },
		"ci":              func() error { _, err := m.Ci(ctx, "", nil, nil, "all", "default"); return err },
		"python-versions": func() error { _, err := m.PythonVersions(ctx); return err },
		"image":           func() error { _, err := m.Image(ctx, "filer", ""); return err },
	} {
		if err := call(); !errors.Is(err, ci.ErrShipyardTree) || !strings.Contains(err.Error(), "pass --source=.") {
			t.Errorf("%s on Shipyard's tree: %v", name, err)
		}
	}

	m, e := newModule(t, map[string]string{
		"dagger.json":                            `{"name": "tesk-core", "engineVersion": "v0.21.8", "toolchains": [{"name": "shipyard", "source": "toolchains/shipyard"}]}`,
		"toolchains/shipyard/dagger.json":        own["dagger.json"],
		"toolchains/shipyard/supplychain/go.mod": own["supplychain/go.mod"],
	})
	e.ExpectExecs(ciExecs...)
	cleanScans(e)
	out, err := m.Ci(ctx, "", nil, nil, "all", "default")
	if err != nil {
		t.Fatal(err)
	}
	if v := readVerdict(t, out); !v.Passed {
		t.Fatalf("ci on the fixture with Shipyard as a toolchain: %+v", v)
	}
}

func TestPythonVersionsAndOneImage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, e := newModule(t, nil)
	got, err := m.PythonVersions(ctx)
	if err != nil || got != `["3.10","3.11","3.12","3.13"]` {
		t.Fatalf("python-versions = %s, %v", got, err)
	}
	img, err := m.Image(ctx, "filer", "0.11.0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := img.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if b := e.Graph().Builds(); len(b) != 1 || b[0].Dockerfile != "containers/filer.Dockerfile" {
		t.Fatalf("builds %+v", b)
	}
	if msg, err := m.PrTitle(""); err != nil || !strings.Contains(msg, "nothing to check") {
		t.Errorf("pr-title without a title: %q, %v", msg, err)
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
	cov, err := m.Test(ctx, []string{"3.12"}, nil, "all")
	if err != nil {
		t.Fatalf("test: %v", err)
	}
	// The verdict sits next to the coverage (issue 15).
	if entries, _ := cov.Entries(ctx); len(entries) != 2 || entries[0] != "3.12/" || entries[1] != "verdict.json" {
		t.Errorf("coverage entries %v", entries)
	}
	if _, err := m.Test(ctx, []string{"3.14"}, nil, "all"); err == nil || !strings.Contains(err.Error(), "--python-image 3.14=") {
		t.Errorf("unpinned version: %v", err)
	}
	if _, err := m.Test(ctx, []string{"3.14"}, []string{"3.14=python:3.14-slim@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}, "all"); err != nil {
		t.Errorf("pinned by flag: %v", err)
	}
	// A tag alone would run whatever it moves to with the checkout mounted (issue 52).
	for _, byTag := range []string{"3.14=python:3.14-slim", "3.14=python:3.14-slim@sha256:0123"} {
		if _, err := m.Test(ctx, []string{"3.14"}, []string{byTag}, "all"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("--python-image %q", byTag)) || !strings.Contains(err.Error(), "pin it by digest") {
			t.Errorf("--python-image %s: %v, want a refusal naming the value and the fix", byTag, err)
		}
	}
	if _, err := m.Docs(ctx); err != nil {
		t.Errorf("docs: %v", err)
	}
	// One container per image and default platform.
	images, err := m.Images(ctx, "0.11.0")
	if err != nil || len(images) != 4 {
		t.Fatalf("images: %v %v", images, err)
	}
	if _, err := m.Scan(ctx, "0.11.0", ""); err != nil {
		t.Errorf("scan: %v", err)
	}
	if _, err := m.EndToEnd(ctx, "default"); err != nil {
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

// The repository owns the images its CI runs: the pins file of its tree, which Dependabot
// keeps current, replaces Shipyard's pins; --pin still wins for one run; a malformed file
// stops the function before anything runs, naming its line.
func TestRepositoryPinsFileReplacesThePins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const digest = "sha256:2222222222222222222222222222222222222222222222222222222222222222"
	python := "docker.io/library/python:3.12.99-slim-bookworm@" + digest
	uv := "ghcr.io/astral-sh/uv:0.9.99@" + digest
	file := strings.Replace(string(pins.FileOf(pins.DefaultPins())), pins.DefaultPins().Python["3.12"], python, 1)
	file = strings.Replace(file, pins.DefaultPins().UV, uv, 1)
	m, e := newModule(t, map[string]string{pins.File: file})
	e.ExpectExecs(ciExecs...)
	if _, err := m.Test(ctx, []string{"3.12"}, nil, "all"); err != nil {
		t.Fatal(err)
	}
	images := strings.Join(e.Graph().Images(), "\n")
	if !strings.Contains(images, python) || !strings.Contains(images, uv) || strings.Contains(images, pins.DefaultPins().Python["3.12"]) {
		t.Errorf("images pulled:\n%s", images)
	}

	flag := "mirror.example/uv:0.9.99@" + digest
	m.Pin = []string{"uv=" + flag}
	if _, err := m.Lint(ctx); err != nil {
		t.Fatal(err)
	}
	if images := strings.Join(e.Graph().Images(), "\n"); !strings.Contains(images, flag) {
		t.Errorf("--pin did not win over the file:\n%s", images)
	}

	broken, _ := newModule(t, map[string]string{pins.File: "FROM python:3.12-slim AS python-3.12\n"})
	if _, err := broken.Lint(ctx); err == nil || !strings.Contains(err.Error(), pins.File+":1: python:3.12-slim is not pinned by digest") {
		t.Errorf("a malformed pins file: %v", err)
	}
}

// with-platforms builds each image once per platform; a malformed platform is refused
// before anything runs.
func TestWithPlatformsBuildsEachPlatform(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, e := newModule(t, nil)
	multi, err := m.WithPlatforms([]string{"linux/amd64", "linux/arm64"})
	if err != nil {
		t.Fatal(err)
	}
	built, err := multi.Images(ctx, "0.11.0")
	if err != nil {
		t.Fatal(err)
	}
	if len(built) != 4 {
		t.Fatalf("images returned %d containers, want one per image and platform", len(built))
	}
	for _, c := range built {
		if _, err := c.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	for _, b := range e.Graph().Builds() {
		seen[b.Platform]++
	}
	if seen["linux/amd64"] != 2 || seen["linux/arm64"] != 2 {
		t.Errorf("builds by platform: %v, want both images on each", seen)
	}
	if _, err := m.WithPlatforms([]string{"linux"}); err == nil {
		t.Error("a platform without its architecture was accepted")
	}
}

// Without with-platforms, each function builds for the platforms its declaration says: a
// function that publishes for both default platforms, a CI job for the engine's.
func TestDefaultPlatformsByFunction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, _ := newModule(t, nil)
	built, err := m.Images(ctx, "0.11.0")
	if err != nil {
		t.Fatal(err)
	}
	if len(built) != 4 {
		t.Errorf("images returned %d containers, want both images on both default platforms", len(built))
	}
	for fn, want := range map[string]int{"push-by-digest": 2, "push-platform-by-digest": 2, "assemble-index": 2, "publish-dev": 2, "scan": 0, "end-to-end": 0, "ci": 0} {
		p, err := openCall(t, m, fn).pipeline(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Platforms) != want {
			t.Errorf("%s builds for %v, want %d platforms", fn, p.Platforms, want)
		}
	}
	cfg, err := openCall(t, m, "release").releaseConfig(ctx, releaseFlags{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Platforms) != 2 {
		t.Errorf("release builds for %v, want both default platforms", cfg.Platforms)
	}
}

func digestOf(t *testing.T, img interface{ Digest() (v1.Hash, error) }) string {
	t.Helper()
	h, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}
