//go:build realengine

package realengine

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/teskreal"
)

// tesk-core's CI jobs on tesk-core's real code (internal/testkit/teskreal: the real package
// and its real tests, laid out as the development guide says) with the real Python tools of
// the Debian toolchain image: pytest, coverage, mkdocs, pre-commit with ruff, mypy and
// gitleaks. Each job passes on the fixture and fails, with its reports, on a seeded fault.
// uv is the stand-in (internal/realengine/uvstandin): the project is locked in the image
// (`uv lock`), then every job syncs with --frozen against what the image holds.

// teskRealProject is the fixture with changes (path → contents) applied, locked in the
// toolchain image.
func teskRealProject(t testing.TB, changes map[string]string) string {
	t.Helper()
	dir := teskreal.Tree(t)
	for p, c := range changes {
		write(t, filepath.Join(dir, filepath.FromSlash(p)), c)
	}
	lockInImage(t, dir)
	return dir
}

// lockInImage runs the fixture's lock command in the toolchain image, through the engine's
// own API, and writes the lock beside the project, as a maintainer commits it.
func lockInImage(t testing.TB, dir string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "uv.lock")
	args := []string{"--progress=plain", "core", "container", "from", "--address", pythonImage(t),
		"with-directory", "--path", "/src", "--source", dir,
		"with-workdir", "--path", "/src",
		"with-exec", "--args", strings.Join(teskreal.LockCommand(), ","),
		"file", "--path", "/src/uv.lock", "export", "--path", out}
	cmd := exec.Command(daggerCLI, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if b, err := cmd.Output(); err != nil {
		t.Fatalf("locking the fixture in the toolchain image: %v\n%s\n%s", err, b, tail(stderr.String(), 30))
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), `name = "teskcore"`) {
		t.Fatalf("the lock: %v\n%.400s", err, b)
	}
	write(t, filepath.Join(dir, "uv.lock"), string(b))
}

// teskVerdict reads a job's exported verdict.json.
func teskVerdict(t testing.TB, dir string) (passed bool, failures []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "verdict.json"))
	if err != nil {
		t.Fatalf("no verdict.json: %v", err)
	}
	var v struct {
		Passed   bool     `json:"passed"`
		Failures []string `json:"failures"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("verdict.json: %v\n%s", err, b)
	}
	return v.Passed, v.Failures
}

var (
	pytestPassed = regexp.MustCompile(`(\d+) passed`)
	lineRate     = regexp.MustCompile(`<coverage[^>]* line-rate="([0-9.]+)"`)
)

// TestTeskCoreRealTests: test runs the real tests under real coverage, the whole suite and
// each level (which reports its coverage without the project's fail_under, a rule about
// the whole suite); the reports hold real figures. A failing test and a missed line each
// fail the verdict, and the reports are still exported.
func TestTeskCoreRealTests(t *testing.T) {
	t.Parallel()
	pins := pythonPins(t)
	for _, tc := range []struct {
		name, level string
		changes     map[string]string
		passed      bool
		says        string
	}{
		{"all", "all", nil, true, ""},
		{"unit", "unit", nil, true, ""},
		{"integration", "integration", nil, true, ""},
		{"a failing test", "unit", map[string]string{"tests/unit/test_seeded_fault.py": "def test_seeded_fault() -> None:\n    assert 1 + 1 == 3\n"}, false, "test_seeded_fault"},
		{"a missed line", "all", map[string]string{"src/tesk_core/seeded.py": "def never_called() -> int:\n    return 1\n"}, false, "coverage below"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := teskRealProject(t, tc.changes)
			out := t.TempDir()
			call(t, nil, append(append([]string{"--source", src}, pins...), "test", "--python", "3.13", "--level", tc.level, "export", "--path", out)...)
			passed, failures := teskVerdict(t, out)
			if passed != tc.passed || !strings.Contains(strings.Join(failures, "\n"), tc.says) {
				t.Errorf("verdict passed=%v %q, want passed=%v saying %q", passed, failures, tc.passed, tc.says)
			}
			pytest, err := os.ReadFile(filepath.Join(out, "3.13", "pytest.txt"))
			if err != nil {
				t.Fatalf("no pytest.txt: %v", err)
			}
			if m := pytestPassed.FindStringSubmatch(string(pytest)); m == nil || m[1] == "0" {
				t.Errorf("pytest.txt reports no passed test:\n%s", tail(string(pytest), 20))
			}
			xml, err := os.ReadFile(filepath.Join(out, "3.13", "coverage.xml"))
			if err != nil {
				t.Fatalf("no coverage.xml: %v", err)
			}
			rate := lineRate.FindStringSubmatch(string(xml))
			if rate == nil {
				t.Fatalf("coverage.xml has no line rate:\n%.300s", xml)
			}
			report, err := os.ReadFile(filepath.Join(out, "3.13", "coverage.txt"))
			if err != nil || !strings.Contains(string(report), "TOTAL") {
				t.Errorf("coverage.txt: %v\n%s", err, report)
			}
			t.Logf("%s: %s passed, line rate %s", tc.name, pytestPassed.FindStringSubmatch(string(pytest))[1], rate[1])
			if tc.name == "a missed line" && !strings.Contains(string(report), "seeded.py") {
				t.Errorf("coverage.txt does not name the missed file:\n%s", report)
			}
		})
	}
}

// gitCommitAll commits the whole tree of dir, creating the repository first.
func gitCommitAll(t *testing.T, dir, message string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "dev"}, {"add", "-A"}, {"commit", "-q", "-m", message}} {
		if args[0] == "init" {
			if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
				continue
			}
		}
		cmd := exec.Command("git", append([]string{"-c", "user.name=Maintainer", "-c", "user.email=maintainer@example.org"}, args...)...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestTeskCoreRealPatchCoverage: patch-coverage over a real two-commit change runs the
// whole real suite and names exactly the added lines no test ran.
func TestTeskCoreRealPatchCoverage(t *testing.T) {
	t.Parallel()
	pins := pythonPins(t)
	for _, tc := range []struct {
		name, code string
		passed     bool
	}{
		// A module-level constant runs on import: covered.
		{"covered", "\nSEEDED_TIMEOUT = 30\n", true},
		{"uncovered", "\nSEEDED_TIMEOUT = 30\n\n\ndef seeded_timeout() -> int:\n    return SEEDED_TIMEOUT\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := teskRealProject(t, nil)
			gitCommitAll(t, src, "base")
			path := filepath.Join(src, "src", "tesk_core", "path.py")
			old, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			write(t, path, string(old)+tc.code)
			gitCommitAll(t, src, "feat(path): a timeout")
			out := t.TempDir()
			call(t, nil, append(append([]string{"--source", src}, pins...), "patch-coverage", "--base", "HEAD~1", "--python", "3.13", "export", "--path", out)...)
			report, err := os.ReadFile(filepath.Join(out, "patch-coverage.txt"))
			if err != nil {
				t.Fatal(err)
			}
			passed, failures := teskVerdict(t, out)
			t.Logf("%s:\n%s", tc.name, report)
			if passed != tc.passed {
				t.Errorf("verdict passed=%v %q, want %v:\n%s", passed, failures, tc.passed, report)
			}
			lines := strings.Count(string(old), "\n")
			uncovered := lines + 6 // the return line of seeded_timeout
			if !tc.passed && !strings.Contains(string(report), "src/tesk_core/path.py") {
				t.Errorf("the report does not name path.py:\n%s", report)
			}
			if !tc.passed && !regexp.MustCompile(`\b`+strconv.Itoa(uncovered)+`\b`).Match(report) {
				t.Errorf("the report does not name line %d, the one no test ran:\n%s", uncovered, report)
			}
		})
	}
}

// TestTeskCoreRealDocs: docs runs the real mkdocs build --strict with the Material theme;
// a link to a page that does not exist fails it, naming the page.
func TestTeskCoreRealDocs(t *testing.T) {
	t.Parallel()
	pins := pythonPins(t)
	site := t.TempDir()
	call(t, nil, append(append([]string{"--source", teskRealProject(t, nil)}, pins...), "docs", "export", "--path", site)...)
	index, err := os.ReadFile(filepath.Join(site, "index.html"))
	if err != nil || !strings.Contains(string(index), "tesk-core") || !strings.Contains(string(index), "md-header") {
		t.Errorf("the site's index.html is not Material's page of tesk-core: %v\n%.300s", err, index)
	}
	broken := teskRealProject(t, map[string]string{"docs/index.md": "# tesk-core\n\nSee [the filer](filer-guide.md).\n"})
	r := cli(t, nil, "", append(append([]string{"call", "--source", broken}, pins...), "docs", "export", "--path", t.TempDir())...)
	if r.err == nil || !strings.Contains(r.stdout+r.stderr, "filer-guide.md") {
		t.Errorf("docs with a broken link:\n%s", r)
	}
}

// TestTeskCoreRealLint: lint runs the real pre-commit on every file with the image's hooks
// (ruff, ruff format, mypy, gitleaks, the file checks), then the lock check (the uv
// stand-in's), then cffconvert, which Debian does not package and uvx cannot fetch here: on
// the fixture, lint gets through pre-commit and the lock and stops at cffconvert, naming
// it. A lint error stops it at pre-commit, with ruff's finding.
func TestTeskCoreRealLint(t *testing.T) {
	t.Parallel()
	pins := pythonPins(t)
	r := cli(t, nil, "", append(append([]string{"call", "--source", teskRealProject(t, nil)}, pins...), "lint")...)
	// The commands run in one chain, so a failure at cffconvert means pre-commit and the
	// lock check before it passed. (Their output is not asserted: on an engine that ran
	// them before, they come from its cache and print nothing.)
	if all := r.stdout + r.stderr; r.err == nil || !strings.Contains(all, "cffconvert==2.0.0: not installed") || regexp.MustCompile(`\.\.\.Failed`).MatchString(all) {
		t.Errorf("lint on the fixture: want pre-commit and the lock check passed, and a stop at cffconvert:\n%s", r)
	}
	seeded := teskRealProject(t, map[string]string{"tests/unit/seeded_helpers.py": "import os\n\n\ndef helper() -> int:\n    return 1\n"})
	r = cli(t, nil, "", append(append([]string{"call", "--source", seeded}, pins...), "lint")...)
	if all := r.stdout + r.stderr; r.err == nil || !strings.Contains(all, "F401") || !strings.Contains(all, "seeded_helpers.py") {
		t.Errorf("lint with an unused import:\n%s", r)
	}
}

// engineDockerfile builds tesk-core's real package into an image as the fixture's
// Dockerfiles do (a wheel from a build stage, installed without dependencies), on the
// toolchain image: the fixture's Alpine images install the runtime dependencies from PyPI,
// which the engine cannot reach, and the toolchain image has them from Debian.
func engineDockerfile(base, command string) string {
	return "FROM " + base + " AS build\n" +
		"ARG SETUPTOOLS_SCM_PRETEND_VERSION\n" +
		"WORKDIR /src\nCOPY . .\n" +
		"RUN uv build --wheel --out-dir /wheels\n\n" +
		"FROM " + base + "\n" +
		"COPY --from=build /wheels /install/\n" +
		"RUN pip install --break-system-packages --no-index --no-deps /install/*.whl && rm -rf /install\n" +
		"USER 1000\n" +
		"ENTRYPOINT [\"" + command + "\"]\n"
}

// TestTeskCoreRealCI: ci runs the whole graph on the real code: the PR title, lint, the
// tests on Debian's Python 3.13, the docs, both images (the real wheel) and their scans
// with real Trivy. It exports every report whatever the verdict, with the table. Two jobs
// cannot pass here and fail for their named reasons: lint at cffconvert (not packaged;
// uvx cannot fetch it) and the end-to-end tests (no k3s image: its pin is the toolchain
// image).
//
// It runs as a team's runner does on a shared engine: from its own checkout, reaching the
// engine only over TCP (remoteClient, remote_test.go).
func TestTeskCoreRealCI(t *testing.T) {
	t.Parallel()
	remote := remoteClient(t)
	img := pythonImage(t)
	src := teskRealProject(t, map[string]string{
		"containers/taskmaster.Dockerfile": engineDockerfile(img, "taskmaster"),
		"containers/filer.Dockerfile":      engineDockerfile(img, "filer"),
	})
	out := t.TempDir()
	remote.call(t, nil, "--source", src, "--pin", "python-3.13="+img, "--pin", "uv="+img, "--pin", "go="+img,
		"--pin", "trivy="+trivyImage, "--pin", "k3s="+img,
		"ci", "--python", "3.13", "--pr-title", "fix(filer): retry uploads", "export", "--path", out)
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatalf("no summary.md: %v", err)
	}
	t.Logf("summary.md:\n%s", summary)
	for _, row := range []string{"| PR title | passed", "| Test (Python 3.13) | passed", "| Docs | passed",
		"| Scan image (taskmaster) | passed", "| Scan image (filer) | passed", "| Lint | failed", "| End-to-end test | failed"} {
		if !strings.Contains(string(summary), row) {
			t.Errorf("summary.md lacks %q", row)
		}
	}
	passed, failures := teskVerdict(t, out)
	joined := strings.Join(failures, "\n")
	if passed || len(failures) != 2 || !strings.Contains(joined, "cffconvert") || !strings.Contains(joined, "k3s") {
		t.Errorf("verdict passed=%v %q; want only lint (cffconvert) and the end-to-end tests (k3s) failed", passed, failures)
	}
	for _, report := range []string{"coverage/3.13/coverage.xml", "coverage/3.13/pytest.txt", "site/index.html", "scan/taskmaster", "scan/filer"} {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(report))); err != nil {
			t.Errorf("ci exported no %s: %v", report, err)
		}
	}
}
