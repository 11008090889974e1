package ci

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/internal/pins"

	"dagger.io/dagger"
)

// Test levels: tesk-core's tests are split into tests/unit and tests/integration (tests/e2e
// is the end-to-end job's); "all" runs pytest as the project configures it.
const (
	LevelAll         = "all"
	LevelUnit        = "unit"
	LevelIntegration = "integration"
)

// Levels returns the values of test --level.
func Levels() []string {
	return []string{LevelAll, LevelUnit, LevelIntegration}
}

// CheckLevel refuses a level the project does not have.
func CheckLevel(level string) error {
	if !slices.Contains(Levels(), level) {
		return fmt.Errorf("--level %q: want one of %s", level, strings.Join(Levels(), ", "))
	}
	return nil
}

// testCommands are the commands of one test run at a level: pytest under coverage, the
// Cobertura XML for upload, and the coverage report. The project's fail_under (100%) is a
// rule about the whole suite, so one level alone reports its coverage without that gate.
func testCommands(level string) (pytest, xml, report []string) {
	pytest = []string{"uv", "run", "coverage", "run", "-m", "pytest"}
	report = []string{"uv", "run", "coverage", "report", "-m"}
	if level != LevelAll {
		pytest = append(pytest, "tests/"+level)
		report = append(report, "--fail-under=0")
	}
	return pytest, []string{"uv", "run", "coverage", "xml", "-o", "/out/coverage.xml"}, report
}

// anyExit lets a command end with any exit code, so the reports after it are still written;
// the pipeline reads each exit code and decides.
var anyExit = dagger.ContainerWithExecOpts{Expect: dagger.ReturnTypeAny}

// VersionResult is the outcome of the tests on one Python version, with its reports.
type VersionResult struct {
	Python string
	// Reports holds coverage.xml (when coverage wrote one), pytest.txt and coverage.txt.
	Reports *dagger.Directory
	// ExitCode is pytest's, or the coverage report's when pytest passed.
	ExitCode int
	// Failure is the one line to read first when the version failed.
	Failure string
	Err     error
}

// TestRun runs the tests of one level on one Python version under coverage, keeping
// pytest's output, coverage.xml and the coverage report whatever the outcome: a failing test
// or a coverage below fail_under is in Err, with its reports.
func (p *Pipeline) TestRun(ctx context.Context, minor, level string) VersionResult {
	r := VersionResult{Python: minor, Reports: p.Client.Directory()}
	fail := func(err error) VersionResult {
		r.Err = fmt.Errorf("test (Python %s): %w", minor, err)
		if r.Failure == "" {
			r.Failure = jobs.FirstErrorLine(err)
		}
		return r
	}
	if err := CheckLevel(level); err != nil {
		return fail(err)
	}
	ctr, err := p.python(minor, p.codeSource())
	if err != nil {
		return fail(err)
	}
	pytest, xml, report := testCommands(level)
	ran := ctr.
		WithExec([]string{"uv", "sync", "--frozen", "--extra", "dev"}).
		WithExec(pytest, anyExit)
	code, out, err := outcome(ctx, ran)
	if err != nil {
		return fail(err)
	}
	r.Reports = r.Reports.WithNewFile("pytest.txt", out)
	withXML := ran.WithExec(xml, anyExit)
	xmlCode, _, err := outcome(ctx, withXML)
	if err != nil {
		return fail(err)
	}
	// coverage exits 2 when the total is below fail_under, after writing the report.
	if xmlCode == 0 || xmlCode == 2 {
		r.Reports = r.Reports.WithFile("coverage.xml", withXML.File("/out/coverage.xml"))
	}
	reported := withXML.WithExec(report, anyExit)
	reportCode, reportOut, err := outcome(ctx, reported)
	if err != nil {
		return fail(err)
	}
	r.Reports = r.Reports.WithNewFile("coverage.txt", reportOut)
	switch {
	case code != 0:
		r.ExitCode = code
		r.Failure = failureLine(out)
		return fail(fmt.Errorf("pytest exited %d: %s", code, r.Failure))
	case reportCode != 0:
		r.ExitCode = reportCode
		r.Failure = "coverage below the project's fail_under: " + failureLine(reportOut)
		return fail(fmt.Errorf("coverage report exited %d: %s", reportCode, r.Failure))
	}
	return r
}

// outcome runs a container whose last command may fail and returns its exit code and its
// output (stdout, then stderr).
func outcome(ctx context.Context, ctr *dagger.Container) (int, string, error) {
	code, err := ctr.ExitCode(ctx)
	if err != nil {
		return 0, "", err
	}
	stdout, err := ctr.Stdout(ctx)
	if err != nil {
		return 0, "", err
	}
	stderr, err := ctr.Stderr(ctx)
	if err != nil {
		return 0, "", err
	}
	if stderr != "" && !strings.HasSuffix(stdout, "\n") && stdout != "" {
		stdout += "\n"
	}
	return code, stdout + stderr, nil
}

// failureLine is the line of pytest's or coverage's output to read first: pytest's short
// summary (FAILED or ERROR, with the test and its message), coverage's own failure, then
// pytest's closing line. Only then any line saying error or failed: a progress line such as
// "tests/unit/test_ftp_errors.py ....  [ 39%]" names a file, not a failure, and Python's
// warnings on stderr come after the report.
func failureLine(out string) string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			lines = append(lines, t)
		}
	}
	for _, first := range []func(string) bool{
		func(l string) bool { return strings.HasPrefix(l, "FAILED ") || strings.HasPrefix(l, "ERROR ") },
		func(l string) bool { return strings.HasPrefix(l, "Coverage failure:") },
		func(l string) bool {
			return pytestClosing.MatchString(l) && (strings.Contains(l, " failed") || strings.Contains(l, " error"))
		},
		func(l string) bool {
			low := strings.ToLower(l)
			return !pytestProgress.MatchString(l) && (strings.Contains(low, "error") || strings.Contains(low, "failed") || strings.HasPrefix(low, "fail"))
		},
	} {
		for _, l := range lines {
			if first(l) {
				return l
			}
		}
	}
	if len(lines) == 0 {
		return "(no output)"
	}
	return lines[len(lines)-1]
}

var (
	// pytestClosing is pytest's last line: "==== 1 failed, 134 passed in 12.31s ====".
	pytestClosing = regexp.MustCompile(`^=+ .* =+$`)
	// pytestProgress is a line of pytest's progress: a test file, one mark per test, a percentage.
	pytestProgress = regexp.MustCompile(`^\S+\.py [.FEsxX]+ *\[ *\d+%\]$`)
)

// TestVersions decides the matrix: the given versions, else pyproject.toml's.
func (p *Pipeline) TestVersions(ctx context.Context, given []string) ([]string, error) {
	if len(given) > 0 {
		for _, v := range given {
			if !pins.IsPythonMinor(v) {
				return nil, fmt.Errorf("--python %q: want a minor version like 3.12", v)
			}
		}
		return given, nil
	}
	pyproject, ok, err := readSourceFile(ctx, p.Source, "pyproject.toml")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("pyproject.toml not found at the root of the source; pass --python to choose versions")
	}
	return PythonVersions([]byte(pyproject))
}

// Test runs the matrix at one level in parallel. A failing version does not hide the
// others: every version runs to its end, and the error names each one that failed. The
// returned directory holds <version>/ with the reports of every version, failed or not,
// and verdict.json.
func (p *Pipeline) Test(ctx context.Context, versions []string, level string) (*dagger.Directory, []VersionResult, error) {
	results := make([]VersionResult, len(versions))
	err := fanout.Each(ctx, 0, len(versions), func(ctx context.Context, i int) error {
		results[i] = p.TestRun(ctx, versions[i], level)
		return nil // a failed version is its result, not an error
	})
	if err != nil {
		return nil, nil, err // cancelled: a version did not run
	}
	out := p.Client.Directory()
	var failed []string
	for _, r := range results {
		out = out.WithDirectory(r.Python, r.Reports)
		if r.Err != nil {
			failed = append(failed, fmt.Sprintf("Python %s: %s", r.Python, r.Failure))
		}
	}
	sort.Strings(failed)
	if len(failed) > 0 {
		err = fmt.Errorf("tests failed on %d of %d Python versions: %s", len(failed), len(versions), strings.Join(failed, "; "))
	}
	return WithVerdict(out, NewVerdict("Test", failed...)), results, err
}

// CheckPinned refuses a Python version without a pinned image before anything runs: a
// configuration error, not a test failure for the verdict.
func (p *Pipeline) CheckPinned(versions []string) error {
	for _, v := range versions {
		if _, err := p.Pins.PythonImage(v); err != nil {
			return err
		}
	}
	return nil
}
