package ci

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"dagger.io/dagger"

	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/testkit/corpus"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/trust"
)

// fixedNow keeps the ignore-file expiry rules independent of the day the tests run.
var fixedNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// newPipeline connects a pipeline to a fresh engine double, with the tesk-core fixture
// (changed as given) as its source.
func newPipeline(t *testing.T, changes map[string]string, opts ...engine.Option) (*Pipeline, *engine.Engine) {
	t.Helper()
	e := engine.New(t, append([]engine.Option{engine.StrictExecs()}, opts...)...)
	e.ExpectExecs(ciExecs...)
	c := e.Client(context.Background())
	src := c.Host().Directory(fixtures.TeskCore(t, changes))
	p := New(c, src)
	p.Now = func() time.Time { return fixedNow }
	return p, e
}

// ciExecs are the commands of tesk-core's CI jobs, which succeed unless a test says
// otherwise; the engine is strict, so any other command fails the test.
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

// cleanReport is a well-formed Trivy report of an image with nothing to fix.
const cleanReport = `{"SchemaVersion": 2, "ArtifactName": "image.tar", "ArtifactType": "container_image", "Results": []}`

// cleanScans makes Trivy report nothing on both images.
func cleanScans(e *engine.Engine) {
	for _, img := range []string{"taskmaster", "filer"} {
		e.OnFile(engine.FileRule{Path: "/out/" + img + ".json", Contents: cleanReport})
	}
}

func TestTestMatrixFromPyproject(t *testing.T) {
	ctx := context.Background()
	p, e := newPipeline(t, nil)
	versions, err := p.TestVersions(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(versions, []string{"3.10", "3.11", "3.12", "3.13"}) {
		t.Fatalf("matrix %v", versions)
	}
	if _, _, err := p.Test(ctx, versions); err != nil {
		t.Fatal(err)
	}
	pytest := e.Graph().ExecsWith("coverage run -m pytest")
	if len(pytest) != 4 {
		t.Fatalf("want pytest on 4 versions, got %d", len(pytest))
	}
	var images []string
	for _, ex := range pytest {
		images = append(images, ex.Image)
		if ex.Workdir != "/src" {
			t.Errorf("pytest workdir %q", ex.Workdir)
		}
		if len(ex.Secrets) != 0 {
			t.Errorf("test job received secrets: %v", ex.Secrets)
		}
		if !hasCache(ex, "/root/.cache/uv", trust.UVCacheVolume) {
			t.Errorf("pytest on %s lacks the shared uv cache: %+v", ex.Image, ex.Mounts)
		}
		if ex.Env["UV_PROJECT_ENVIRONMENT"] != "/venv" {
			t.Errorf("project environment not outside the source: %v", ex.Env)
		}
	}
	slices.Sort(images)
	var want []string
	for _, v := range versions {
		want = append(want, pins.DefaultPins().Python[v])
	}
	slices.Sort(want)
	if !slices.Equal(images, want) {
		t.Fatalf("images %v, want %v", images, want)
	}
	for _, step := range []string{"uv sync --frozen --extra dev", "coverage report -m", "coverage xml -o /out/coverage.xml"} {
		if n := len(e.Graph().ExecsWith(step)); n != 4 {
			t.Errorf("%q ran %d times, want once per version", step, n)
		}
	}
}

func hasCache(ex engine.Exec, path, name string) bool {
	for _, m := range ex.Mounts {
		if m.Path == path && m.Kind == "withMountedCache" && strings.Contains(m.Cache, name) {
			return true
		}
	}
	return false
}

func TestTestMatrixNarrowedByPyproject(t *testing.T) {
	ctx := context.Background()
	pyproject := strings.Replace(fixtureFile(t, "pyproject.toml"), `requires-python = ">=3.10"`, `requires-python = ">=3.11,<3.13"`, 1)
	p, e := newPipeline(t, map[string]string{"pyproject.toml": pyproject})
	versions, err := p.TestVersions(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(versions, []string{"3.11", "3.12"}) {
		t.Fatalf("matrix %v", versions)
	}
	dir, _, err := p.Test(ctx, versions)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := dir.Entries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(entries, []string{"3.11/", "3.12/"}) {
		t.Fatalf("coverage folders %v", entries)
	}
	if n := len(e.Graph().ExecsWith("pytest")); n != 2 {
		t.Fatalf("pytest ran %d times, want 2", n)
	}
}

// fixtureFile reads a file of the tesk-core fixture.
func fixtureFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures.TeskCore(t, nil), name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOneVersionFailsOthersPass(t *testing.T) {
	ctx := context.Background()
	p, e := newPipeline(t, nil)
	e.OnExec(engine.ExecRule{
		ArgsContain: "coverage run -m pytest",
		Image:       pins.DefaultPins().Python["3.11"],
		Stderr:      "tests/unit/test_taskmaster.py F\nFAILED tests/unit/test_taskmaster.py::test_main - KeyError\n",
		ExitCode:    1,
	})
	dir, results, err := p.Test(ctx, DefaultPythonVersions)
	if err == nil || !strings.Contains(err.Error(), "Python 3.11: FAILED tests/unit/test_taskmaster.py::test_main - KeyError") {
		t.Fatalf("error %v does not name the failing version and test", err)
	}
	if strings.Contains(err.Error(), "3.12") {
		t.Fatalf("passing versions reported as failed: %v", err)
	}
	for _, r := range results {
		var ee *dagger.ExecError
		if r.Python == "3.11" {
			if !errors.As(r.Err, &ee) || ee.ExitCode != 1 {
				t.Fatalf("3.11: want an ExecError with exit code 1, got %v", r.Err)
			}
		} else if r.Err != nil {
			t.Fatalf("%s failed: %v", r.Python, r.Err)
		}
	}
	entries, _ := dir.Entries(ctx)
	if !slices.Equal(entries, []string{"3.10/", "3.12/", "3.13/"}) {
		t.Fatalf("coverage of passing versions %v", entries)
	}
}

func TestImagesBuiltFromContainersDockerfiles(t *testing.T) {
	ctx := context.Background()
	p, e := newPipeline(t, nil)
	images, err := p.Images(ctx, "0.11.0rc1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, img := range images {
		names = append(names, img.Spec.Repository)
		if _, err := img.Container.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(names, []string{"tesk-core-filer", "tesk-core-taskmaster"}) {
		t.Fatalf("images %v", names)
	}
	builds := e.Graph().Builds()
	if len(builds) != 2 {
		t.Fatalf("builds %+v", builds)
	}
	for _, b := range builds {
		if !strings.HasPrefix(b.Dockerfile, "containers/") || !strings.HasSuffix(b.Dockerfile, ".Dockerfile") {
			t.Errorf("dockerfile %q", b.Dockerfile)
		}
		if b.BuildArgs["SETUPTOOLS_SCM_PRETEND_VERSION"] != "0.11.0rc1" {
			t.Errorf("build args %v", b.BuildArgs)
		}
		if len(b.Secrets) != 0 {
			t.Errorf("a build received secrets %v", b.Secrets)
		}
	}
}

func TestImagesWithoutHistoryReportTheFallbackVersion(t *testing.T) {
	ctx := context.Background()
	p, e := newPipeline(t, nil)
	images, err := p.Images(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, img := range images {
		if _, err := img.Container.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range e.Graph().Builds() {
		if b.BuildArgs["SETUPTOOLS_SCM_PRETEND_VERSION"] != FallbackVersion {
			t.Errorf("without .git the build must pretend %s, got %v", FallbackVersion, b.BuildArgs)
		}
	}
}

func TestScanPolicy(t *testing.T) {
	ctx := context.Background()
	buster := string(corpus.Read(t, "trivy", "debian-buster.json"))
	cases := []struct {
		name    string
		ignore  string // replaces .trivyignore.yaml; "" keeps the fixture's
		report  string
		wantErr string
	}{
		{"clean images pass", "", cleanReport, ""},
		{"a fixable CRITICAL fails", "", buster, "fixable CRITICAL or HIGH"},
		{
			"an accepted CRITICAL passes",
			"vulnerabilities:\n  - id: CVE-2019-18224\n    statement: libidn2 is not reachable from the filer\n    expired_at: 2027-01-31\n",
			buster, "",
		},
		{
			"an expired acceptance fails, naming the entry",
			"vulnerabilities:\n  - id: CVE-2019-18224\n    statement: accepted until the base image moves\n    expired_at: 2026-01-31\n",
			buster, "CVE-2019-18224",
		},
		{
			"an entry without a reason fails",
			"vulnerabilities:\n  - id: CVE-2019-18224\n    expired_at: 2027-01-31\n",
			cleanReport, ".trivyignore.yaml:2",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			changes := map[string]string{}
			if c.ignore != "" {
				changes[".trivyignore.yaml"] = c.ignore
			}
			p, e := newPipeline(t, changes)
			e.OnFile(engine.FileRule{Path: "/out/taskmaster.json", Contents: c.report})
			e.OnFile(engine.FileRule{Path: "/out/filer.json", Contents: cleanReport})
			images, err := p.Images(ctx, "0.11.0")
			if err != nil {
				t.Fatal(err)
			}
			dir, _, err := p.Scan(ctx, images)
			if c.wantErr == "" && err != nil {
				t.Fatalf("scan failed: %v", err)
			}
			if c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("error %v, want containing %q", err, c.wantErr)
			}
			if dir == nil {
				t.Fatal("no report directory")
			}
			if _, err := dir.File("summary.txt").Contents(ctx); err != nil {
				t.Fatalf("summary: %v", err)
			}
			for _, ex := range e.Graph().ExecsWith("trivy image") {
				if len(ex.Secrets) != 0 || ex.Image != pins.DefaultPins().Trivy {
					t.Errorf("trivy exec %+v", ex)
				}
				if !hasCache(ex, "/root/.cache/trivy", trivyCacheVolume) {
					t.Errorf("trivy DB not cached: %+v", ex.Mounts)
				}
			}
		})
	}
}

func TestE2EOnK3sWithTheBuiltImages(t *testing.T) {
	ctx := context.Background()
	p, e := newPipeline(t, nil)
	images, err := p.Images(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.E2E(ctx, images); err != nil {
		t.Fatal(err)
	}
	pytest := e.Graph().ExecsWith("pytest tests/e2e")
	if len(pytest) != 1 || pytest[0].Env["TESK_E2E"] != "1" {
		t.Fatalf("e2e pytest %+v", pytest)
	}
	if _, ok := pytest[0].Services["k3s"]; !ok {
		t.Fatalf("pytest not bound to k3s: %v", pytest[0].Services)
	}
	var k3s *engine.Service
	for _, s := range e.Graph().Services() {
		if s.Image == pins.DefaultPins().K3s {
			k3s = &s
		}
	}
	if k3s == nil {
		t.Fatalf("no k3s service in %+v", e.Graph().Services())
	}
	script := strings.Join(k3s.Args, " ")
	for _, img := range []string{"docker.io/library/tesk-core-taskmaster:e2e", "docker.io/library/tesk-core-filer:e2e"} {
		if !strings.Contains(script, img) {
			t.Errorf("k3s does not import %s: %s", img, script)
		}
	}
	order := []string{"kubectl apply -f tests/e2e/manifests/", "kubectl wait --for=condition=Ready pod/tesk-e2e-http", "pytest tests/e2e"}
	last := -1
	execs := e.Graph().Execs()
	for _, step := range order {
		idx := slices.IndexFunc(execs, func(ex engine.Exec) bool { return strings.Contains(strings.Join(ex.Args, " "), step) })
		if idx < 0 {
			t.Fatalf("step %q did not run", step)
		}
		// Each later step's chain extends the earlier one's: that is the order in the container.
		if last >= 0 && !strings.HasPrefix(execs[idx].Chain, execs[last].Chain) && !strings.Contains(execs[idx].Chain, execs[last].Chain) {
			t.Errorf("step %q does not follow the previous one", step)
		}
		last = idx
	}
}

func TestCIRunsEveryJobAndBuildsEachImageOnce(t *testing.T) {
	ctx := context.Background()
	p, e := newPipeline(t, nil)
	cleanScans(e)
	summary, artifacts, err := p.Run(ctx, Options{PRTitle: "feat(filer): retry S3 uploads"})
	if err != nil {
		t.Fatalf("CI failed: %v", err)
	}
	var names []string
	for _, j := range summary.Jobs {
		names = append(names, j.Name+":"+string(j.Status))
	}
	want := []string{"PR title:passed", "Lint:passed", "Test (Python 3.10):passed", "Test (Python 3.11):passed",
		"Test (Python 3.12):passed", "Test (Python 3.13):passed", "End-to-end test:passed", "Docs:passed",
		"Scan image (filer):passed", "Scan image (taskmaster):passed"}
	if !slices.Equal(names, want) {
		t.Fatalf("jobs\n%v\nwant\n%v", names, want)
	}
	builds := e.Graph().Builds()
	if len(builds) != 2 {
		t.Fatalf("each image must be built once, got %d builds", len(builds))
	}
	// The scan and the e2e cluster read the very same image objects.
	for _, img := range []string{"taskmaster", "filer"} {
		var scanned, loaded string
		for _, ex := range e.Graph().Execs() {
			for _, m := range ex.Mounts {
				if m.Path == "/scan/"+img+".tar" {
					scanned = m.Source
				}
			}
		}
		for _, s := range e.Graph().Services() {
			if strings.Contains(s.Chain, "/images/"+img+".tar") {
				loaded = s.Chain
			}
		}
		if scanned == "" || loaded == "" || !strings.Contains(loaded, scanned) {
			t.Errorf("%s: scan input %q is not the image loaded into k3s", img, scanned)
		}
	}
	entries, err := artifacts.Entries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"coverage/", "site/", "scan/"} {
		if !slices.Contains(entries, want) {
			t.Errorf("artifacts %v lack %s", entries, want)
		}
	}
}

func TestCIFailureNamesTheJobAndKeepsTheOthers(t *testing.T) {
	ctx := context.Background()
	p, e := newPipeline(t, nil)
	cleanScans(e)
	e.OnExec(engine.ExecRule{ArgsContain: "uv lock --check", ExitCode: 2, Stderr: "error: The lockfile at `uv.lock` needs to be updated"})
	summary, _, err := p.Run(ctx, Options{PRTitle: "Fix things"})
	if err == nil {
		t.Fatal("CI passed with a failing lint and PR title")
	}
	status := map[string]jobs.JobResult{}
	for _, j := range summary.Jobs {
		status[j.Name] = j
	}
	if j := status["Lint"]; j.Status != jobs.Failed || j.ExitCode != 2 || !strings.Contains(j.Reason, "uv.lock") {
		t.Errorf("lint row %+v", j)
	}
	if j := status["PR title"]; j.Status != jobs.Failed || !strings.Contains(j.Reason, "No release type found") {
		t.Errorf("PR title row %+v", j)
	}
	if j := status["Docs"]; j.Status != jobs.Passed {
		t.Errorf("docs hidden by the lint failure: %+v", j)
	}
	for _, want := range []string{"Lint", "PR title", "exit code 2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("gate error lacks %q:\n%v", want, err)
		}
	}
}

func TestPRTitleLength(t *testing.T) {
	fifty := "fix: " + strings.Repeat("a", 45)
	if len(fifty) != 50 {
		t.Fatal("fixture title is not 50 characters")
	}
	if err := CheckPRTitle(fifty); err != nil {
		t.Fatalf("50 characters refused: %v", err)
	}
	if err := CheckPRTitle(fifty + "b"); err == nil || !strings.Contains(err.Error(), "51") {
		t.Fatalf("51 characters: %v", err)
	}
}

func TestNoSecretInAnyCIExec(t *testing.T) {
	ctx := context.Background()
	p, e := newPipeline(t, nil)
	cleanScans(e)
	if _, _, err := p.Run(ctx, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, ex := range e.Graph().Execs() {
		if len(ex.Secrets) > 0 {
			t.Errorf("%v received secrets %v: CI jobs run without credentials", ex.Args, ex.Secrets)
		}
	}
	if s := e.Graph().Secrets(); len(s) != 0 {
		t.Errorf("CI created secrets: %v", s)
	}
}

// TestDocsChangeTouchesOnlyTheDocsJob: with a change only under docs/, every job's input
// but the docs job's has the same content digest, so a real engine serves them from cache.
func TestDocsChangeTouchesOnlyTheDocsJob(t *testing.T) {
	ctx := context.Background()
	before, _ := newPipeline(t, nil)
	after, _ := newPipeline(t, map[string]string{"docs/index.md": "# tesk-core\n\nNow with a diagram.\n"})
	a, b := before.Inputs(), after.Inputs()
	for job, dir := range a {
		da, err := dir.Digest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		db, err := b[job].Digest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if changed := da != db; changed != (job == "docs") {
			t.Errorf("job %s: input changed = %v after a docs-only change", job, changed)
		}
	}
	// And a code change reaches every job but docs.
	code, _ := newPipeline(t, map[string]string{"src/tesk_core/filer.py": "def main() -> None:\n    pass\n"})
	c := code.Inputs()
	for job, dir := range a {
		da, _ := dir.Digest(ctx)
		dc, _ := c[job].Digest(ctx)
		if changed := da != dc; changed == (job == "docs") {
			t.Errorf("job %s: input changed = %v after a code change", job, changed)
		}
	}
}

// TestScanIsKeyedByDay: a real engine caches an exec whose inputs are unchanged, so without
// a changing input the scan of an unchanged image would never see new vulnerabilities.
func TestScanIsKeyedByDay(t *testing.T) {
	ctx := context.Background()
	scanDay := func(now time.Time) string {
		p, e := newPipeline(t, nil)
		cleanScans(e)
		p.Now = func() time.Time { return now }
		images, err := p.Images(ctx, "0.11.0")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := p.Scan(ctx, images); err != nil {
			t.Fatal(err)
		}
		execs := e.Graph().ExecsWith("trivy image")
		if len(execs) == 0 {
			t.Fatal("no trivy exec")
		}
		return execs[0].Env["SHIPYARD_SCAN_DAY"]
	}
	morning, evening := scanDay(fixedNow.Add(-10*time.Hour)), scanDay(fixedNow.Add(10*time.Hour))
	next := scanDay(fixedNow.Add(30 * time.Hour))
	if morning != "2026-06-01" || evening != morning {
		t.Errorf("scans of one day keyed %q and %q, want 2026-06-01 both", morning, evening)
	}
	if next != "2026-06-02" {
		t.Errorf("next day's scan keyed %q", next)
	}
}

// Two e2e runs of different sources on one engine, at once: each k3s writes its
// kubeconfig into a volume only its own test runner mounts.
func TestConcurrentE2ERunsDoNotShareTheKubeconfig(t *testing.T) {
	ctx := context.Background()
	e := engine.New(t)
	c := e.Client(ctx)
	sources := []map[string]string{nil, {"tests/e2e/test_extra.py": "def test_extra():\n    pass\n"}}
	errs := make([]error, len(sources))
	var wg sync.WaitGroup
	for i, changes := range sources {
		p := New(c, c.Host().Directory(fixtures.TeskCore(t, changes)))
		p.Now = func() time.Time { return fixedNow }
		wg.Go(func() {
			images, err := p.Images(ctx, "")
			if err != nil {
				errs[i] = err
				return
			}
			_, errs[i] = p.E2E(ctx, images)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	pytest := e.Graph().ExecsWith("pytest tests/e2e")
	if len(pytest) != 2 {
		t.Fatalf("want 2 e2e runs, got %d", len(pytest))
	}
	var mounted []string
	for _, ex := range pytest {
		for _, m := range ex.Mounts {
			if m.Path == "/etc/rancher/k3s" && m.Kind == "withMountedCache" {
				mounted = append(mounted, m.Cache)
				// Its own k3s service writes the same volume.
				if !strings.Contains(ex.Services["k3s"], m.Cache) {
					t.Errorf("the k3s service of a run does not mount its runner's volume %q", m.Cache)
				}
			}
		}
	}
	if len(mounted) != 2 || mounted[0] == mounted[1] {
		t.Errorf("the two runners mount the kubeconfig volumes %v, want two different ones", mounted)
	}
}
