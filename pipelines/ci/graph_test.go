package ci

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"dagger/shipyard/internal/codescanning"
	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/internal/trivy"
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
var ciExecs = flowexecs.CI()

// cleanReport is a well-formed Trivy report of an image with nothing to fix.
const cleanReport = `{"SchemaVersion": 2, "ArtifactName": "image.tar", "ArtifactType": "container_image", "Results": []}`

// cleanScans makes Trivy report nothing on both images.
func cleanScans(e *engine.Engine) {
	for _, img := range []string{"taskmaster", "filer"} {
		e.OnFile(engine.FileRule{Path: "/out/" + img + ".json", Contents: cleanReport})
		e.OnFile(engine.FileRule{Path: "/out/" + img + ".sarif", Contents: flowexecs.CleanSARIF})
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
	if _, _, err := p.Test(ctx, versions, LevelAll); err != nil {
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
	dir, _, err := p.Test(ctx, versions, LevelAll)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := dir.Entries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(entries, []string{"3.11/", "3.12/", VerdictFile}) {
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
	dir, results, err := p.Test(ctx, DefaultPythonVersions(), LevelAll)
	if err == nil || !strings.Contains(err.Error(), "Python 3.11: FAILED tests/unit/test_taskmaster.py::test_main - KeyError") {
		t.Fatalf("error %v does not name the failing version and test", err)
	}
	if strings.Contains(err.Error(), "3.12") {
		t.Fatalf("passing versions reported as failed: %v", err)
	}
	for _, r := range results {
		if r.Python == "3.11" {
			if r.Err == nil || r.ExitCode != 1 {
				t.Fatalf("3.11: want pytest's exit code 1, got %d, %v", r.ExitCode, r.Err)
			}
		} else if r.Err != nil {
			t.Fatalf("%s failed: %v", r.Python, r.Err)
		}
	}
	// Every version keeps its reports, the failing one included (the issue: reports survive
	// failure), with the verdict naming the failure.
	entries, _ := dir.Entries(ctx)
	if !slices.Equal(entries, []string{"3.10/", "3.11/", "3.12/", "3.13/", VerdictFile}) {
		t.Fatalf("reports %v", entries)
	}
	out, err := dir.File("3.11/pytest.txt").Contents(ctx)
	if err != nil || !strings.Contains(out, "FAILED tests/unit/test_taskmaster.py::test_main") {
		t.Fatalf("3.11/pytest.txt = %q, %v", out, err)
	}
	if _, err := dir.File("3.11/coverage.xml").Sync(ctx); err != nil {
		t.Fatalf("3.11/coverage.xml: %v", err)
	}
	v, err := ReadVerdict(ctx, dir)
	if err != nil || v.Passed || len(v.Failures) != 1 || !strings.Contains(v.Failures[0], "Python 3.11") {
		t.Fatalf("verdict %+v, %v", v, err)
	}
}

// Below the project's fail_under, coverage still writes coverage.xml and its report: both
// are kept, and the verdict fails.
func TestCoverageBelowThresholdKeepsTheReports(t *testing.T) {
	ctx := context.Background()
	p, e := newPipeline(t, nil)
	e.OnExec(engine.ExecRule{ArgsContain: "uv run coverage xml", ExitCode: 2, Stdout: "Coverage failure: total of 97 is less than fail-under=100\n"})
	e.OnExec(engine.ExecRule{ArgsContain: "uv run coverage report", ExitCode: 2,
		Stdout: "src/tesk_core/filer.py  120  4  97%  10-13\nTOTAL  400  4  97%\nCoverage failure: total of 97 is less than fail-under=100\n"})
	dir, _, err := p.Test(ctx, []string{"3.12"}, LevelAll)
	if err == nil || !strings.Contains(err.Error(), "Python 3.12: coverage below the project's fail_under: Coverage failure: total of 97") {
		t.Fatalf("err = %v", err)
	}
	report, err := dir.File("3.12/coverage.txt").Contents(ctx)
	if err != nil || !strings.Contains(report, "10-13") {
		t.Fatalf("coverage.txt = %q, %v", report, err)
	}
	if _, err := dir.File("3.12/coverage.xml").Sync(ctx); err != nil {
		t.Fatalf("coverage.xml: %v", err)
	}
	if v, err := ReadVerdict(ctx, dir); err != nil || v.Passed {
		t.Fatalf("verdict %+v, %v", v, err)
	}
}

// test --level runs one folder of tests; the whole-suite threshold does not apply to it.
func TestTestLevels(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		level, pytest, report string
	}{
		{LevelAll, "uv run coverage run -m pytest", "uv run coverage report -m"},
		{LevelUnit, "uv run coverage run -m pytest tests/unit", "uv run coverage report -m --fail-under=0"},
		{LevelIntegration, "uv run coverage run -m pytest tests/integration", "uv run coverage report -m --fail-under=0"},
	} {
		t.Run(tt.level, func(t *testing.T) {
			p, e := newPipeline(t, nil)
			dir, _, err := p.Test(ctx, []string{"3.12"}, tt.level)
			if err != nil {
				t.Fatal(err)
			}
			if v, err := ReadVerdict(ctx, dir); err != nil || !v.Passed {
				t.Fatalf("verdict %+v, %v", v, err)
			}
			var pytest, report []string
			for _, ex := range e.Graph().Execs() {
				joined := strings.Join(ex.Args, " ")
				if strings.Contains(joined, "-m pytest") {
					pytest = append(pytest, joined)
				}
				if strings.Contains(joined, "coverage report") {
					report = append(report, joined)
				}
			}
			if !slices.Equal(pytest, []string{tt.pytest}) || !slices.Equal(report, []string{tt.report}) {
				t.Errorf("ran %q and %q", pytest, report)
			}
		})
	}
	p, _ := newPipeline(t, nil)
	if _, _, err := p.Test(ctx, []string{"3.12"}, "e2e"); err == nil || !strings.Contains(err.Error(), `--level "e2e": want one of all, unit, integration`) {
		t.Errorf("unknown level: %v", err)
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
	busterSARIF, err := os.ReadFile(filepath.Join("testdata", "debian-buster.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		ignore  string // replaces .trivyignore.yaml; "" keeps the fixture's
		report  string
		wantErr string
		// suppressed is the rule the taskmaster's SARIF marks as accepted, if any.
		suppressed string
	}{
		{"clean images pass", "", cleanReport, "", ""},
		// The fixture accepts bash's CVE-2019-18276: the SARIF marks it, the CRITICAL still fails.
		{"a fixable CRITICAL fails", "", buster, "fixable CRITICAL or HIGH", "CVE-2019-18276"},
		{
			"an accepted CRITICAL passes",
			"vulnerabilities:\n  - id: CVE-2019-18224\n    statement: libidn2 is not reachable from the filer\n    expired_at: 2027-01-31\n",
			buster, "", "CVE-2019-18224",
		},
		{
			"an expired acceptance fails, naming the entry",
			"vulnerabilities:\n  - id: CVE-2019-18224\n    statement: accepted until the base image moves\n    expired_at: 2026-01-31\n",
			buster, "CVE-2019-18224", "",
		},
		{
			"an entry without a reason fails",
			"vulnerabilities:\n  - id: CVE-2019-18224\n    expired_at: 2027-01-31\n",
			cleanReport, ".trivyignore.yaml:2", "",
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
			e.OnFile(engine.FileRule{Path: "/out/taskmaster.sarif", Contents: string(busterSARIF)})
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
			// The reports survive a failing verdict, which says what failed.
			if v, err := ReadVerdict(ctx, dir); err != nil || v.Passed != (c.wantErr == "") ||
				(c.wantErr != "" && !strings.Contains(strings.Join(v.Failures, "\n"), c.wantErr)) {
				t.Fatalf("verdict %+v, %v", v, err)
			}
			if _, err := dir.File("taskmaster.json").Sync(ctx); err != nil {
				t.Fatalf("taskmaster.json: %v", err)
			}
			sarif, err := dir.File("taskmaster.sarif").Contents(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := suppressedRules(t, sarif); c.suppressed != "" && !slices.Equal(got, []string{c.suppressed}) {
				t.Errorf("suppressed in the SARIF: %v, want %s", got, c.suppressed)
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

// e2e --namespace: the namespace is created, the manifests applied and the server awaited
// there, and the tests read it from TESK_E2E_NAMESPACE.
func TestE2EInANamespace(t *testing.T) {
	ctx := context.Background()
	p, e := newPipeline(t, nil)
	e.ExpectExecs("kubectl create namespace tesk-e2e")
	images, err := p.Images(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.E2E(ctx, images, "tesk-e2e"); err != nil {
		t.Fatal(err)
	}
	want := []string{"kubectl create namespace tesk-e2e", "kubectl apply -f tests/e2e/manifests/ --namespace tesk-e2e",
		"kubectl wait --for=condition=Ready pod/tesk-e2e-http --timeout=120s --namespace tesk-e2e"}
	for _, w := range want {
		if len(e.Graph().ExecsWith(w)) != 1 {
			t.Errorf("no exec %q", w)
		}
	}
	tests := e.Graph().ExecsWith("pytest tests/e2e")
	if len(tests) != 1 || tests[0].Env["TESK_E2E_NAMESPACE"] != "tesk-e2e" || tests[0].Env["TESK_E2E"] != "1" {
		t.Fatalf("pytest execs %+v", tests)
	}
	if _, err := p.E2E(ctx, images, "Tesk_E2E"); err == nil || !strings.Contains(err.Error(), `--namespace "Tesk_E2E"`) {
		t.Errorf("bad namespace: %v", err)
	}
}

// suppressedRules lists the rules of a SARIF log's results that carry a suppression.
func suppressedRules(t *testing.T, sarif string) []string {
	t.Helper()
	var l struct {
		Runs []struct {
			Results []struct {
				RuleID       string
				Suppressions []trivy.Suppression
			}
		}
	}
	if err := json.Unmarshal([]byte(sarif), &l); err != nil {
		t.Fatalf("SARIF: %v", err)
	}
	var out []string
	for _, r := range l.Runs {
		for _, res := range r.Results {
			if len(res.Suppressions) > 0 {
				out = append(out, res.RuleID)
			}
		}
	}
	return out
}

func TestE2EOnK3sWithTheBuiltImages(t *testing.T) {
	ctx := context.Background()
	p, e := newPipeline(t, nil)
	images, err := p.Images(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.E2E(ctx, images, ""); err != nil {
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

// everyJobPassed is ci's table, job:status, when every job of tesk-core's CI passes on the
// default matrix (Python 3.10 to 3.13).
var everyJobPassed = []string{"PR title:passed", "Lint:passed", "Test (Python 3.10):passed", "Test (Python 3.11):passed",
	"Test (Python 3.12):passed", "Test (Python 3.13):passed", "End-to-end test:passed", "Docs:passed",
	"Scan image (filer):passed", "Scan image (taskmaster):passed"}

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
	if !slices.Equal(names, everyJobPassed) {
		t.Fatalf("jobs\n%v\nwant\n%v", names, everyJobPassed)
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
// but the docs job's and the hooks' (lint runs on all files, docs/ included, as the seed
// does) has the same content digest, so a real engine serves them from cache.
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
		if changed := da != db; changed != (job == "docs" || job == "lint") {
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
			_, errs[i] = p.E2E(ctx, images, "")
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

func TestImageNamed(t *testing.T) {
	ctx := context.Background()
	p, e := newPipeline(t, nil)
	img, err := p.ImageNamed(ctx, "filer", "0.11.0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := img.Container.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if builds := e.Graph().Builds(); len(builds) != 1 || builds[0].Dockerfile != "containers/filer.Dockerfile" {
		t.Fatalf("builds %+v", builds)
	}
	if _, err := p.ImageNamed(ctx, "api", ""); err == nil || !strings.Contains(err.Error(), `no containers/api.Dockerfile; the images are filer, taskmaster`) {
		t.Errorf("unknown image: %v", err)
	}
}

// A SARIF log that cannot be marked is kept as Trivy wrote it, with a warning: the marks
// only spare code scanning open alerts, the verdict does not depend on them.
func TestUnmarkableSARIFKeepsTheVerdict(t *testing.T) {
	ctx := context.Background()
	p, e := newPipeline(t, nil) // the fixture accepts bash's CVE-2019-18276
	e.OnFile(engine.FileRule{Path: "/out/taskmaster.json", Contents: string(corpus.Read(t, "trivy", "debian-buster-ignore-unfixed.json"))})
	e.OnFile(engine.FileRule{Path: "/out/filer.json", Contents: string(corpus.Read(t, "trivy", "debian-buster.json"))})
	e.OnFile(engine.FileRule{Path: "/out/filer.sarif", Contents: `{"version": "2.0.0"}`})
	e.OnFile(engine.FileRule{Path: "/out/taskmaster.sarif", Contents: string(corpus.Read(t, "trivy", "alpine-310.sarif"))})
	images, err := p.Images(ctx, "0.11.0")
	if err != nil {
		t.Fatal(err)
	}
	dir, _, _ := p.Scan(ctx, images)
	v, err := ReadVerdict(ctx, dir)
	if err != nil || len(v.Failures) != 2 || strings.Contains(strings.Join(v.Failures, "\n"), "sarif") {
		t.Fatalf("verdict %+v, %v: want the two CRITICAL findings only", v, err)
	}
	summary, _ := dir.File("summary.txt").Contents(ctx)
	if !strings.Contains(summary, "warning: filer.sarif: kept as Trivy wrote it") || strings.Contains(summary, "taskmaster.sarif") {
		t.Errorf("summary:\n%s", summary)
	}
	// The other image's log got its category and the marks.
	sarif, err := dir.File("taskmaster.sarif").Contents(ctx)
	if err != nil || !strings.Contains(sarif, `"id": "shipyard-scan/taskmaster/"`) {
		t.Errorf("taskmaster.sarif: %v\n%.400s", err, sarif)
	}
}

// Each target's SARIF log is in its own code-scanning category, so the logs of several
// images and platforms go to code scanning in one upload; accepted findings are marked.
func TestReportSARIF(t *testing.T) {
	raw := corpus.Read(t, "trivy", "alpine-310.sarif")
	var runs []codescanning.Run
	for _, target := range []string{"filer", "filer (linux/arm64)", "taskmaster (linux/arm64)"} {
		out, err := ReportSARIF(target, raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := codescanning.ReadRuns(target, out)
		if err != nil || len(r) != 1 || r[0].Category("") != SARIFCategory(target) {
			t.Fatalf("%s: runs %+v (%v)", target, r, err)
		}
		if _, err := trivy.ParseSARIF(out); err != nil {
			t.Errorf("%s: the log is no longer valid SARIF: %v", target, err)
		}
		runs = append(runs, r...)
	}
	if err := codescanning.CheckUpload(runs, ""); err != nil {
		t.Errorf("one upload of the three: %v", err)
	}
	if got := SARIFCategory("filer (linux/arm64)"); got != "shipyard-scan/filer-linux-arm64" {
		t.Errorf("category %q", got)
	}
	if _, err := ReportSARIF("filer", []byte(`{"version": "2.1.0"}`), nil); err == nil {
		t.Error("a log without runs was accepted")
	}
}
