package ci

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"dagger/shipyard/internal/coverage"

	"dagger.io/dagger"
)

// PatchTarget is the patch coverage tesk-core's codecov.yml requires of each pull request.
const PatchTarget = 100

// diff computes the change from the merge base of base and HEAD, in the pinned Go
// image (which has git), over the source with its history.
func (p *Pipeline) diff(ctx context.Context, base string) (string, error) {
	if base == "" || strings.HasPrefix(base, "-") || strings.ContainsAny(base, " \t\n") {
		return "", fmt.Errorf("--base %q: want a Git ref or commit of the checkout, e.g. origin/dev", base)
	}
	hasGit, err := p.Source.Exists(ctx, ".git")
	if err != nil {
		return "", fmt.Errorf("looking for .git: %w", err)
	}
	if !hasGit {
		return "", fmt.Errorf("--base %s: the source has no Git history; pass a checkout with its .git (in CI: fetch-depth: 0)", base)
	}
	out, err := p.Client.Container().
		From(p.Pins.Go).
		WithDirectory("/src", p.Source.Filter(dagger.DirectoryFilterOpts{Exclude: []string{".venv/", "site/", "dist/"}})).
		WithWorkdir("/src").
		WithExec([]string{"git", "-c", "safe.directory=*", "diff", "--unified=0", "--no-color", "--no-ext-diff", base + "...HEAD"}).
		Stdout(ctx)
	if err != nil {
		return "", fmt.Errorf("git diff %s...HEAD: %w", base, err)
	}
	return out, nil
}

// PatchCoverage is Codecov's patch gate on a laptop: it runs the whole test suite on one
// Python version under coverage, diffs the source against base, and reports the added code
// lines no test ran. Failed tests are reported too; the patch verdict is computed from the
// coverage they left.
func (p *Pipeline) PatchCoverage(ctx context.Context, base, minor string) (coverage.Patch, string, error) {
	if minor == "" {
		minor = p.toolPython()
	}
	diff, err := p.diff(ctx, base)
	if err != nil {
		return coverage.Patch{}, "", err
	}
	added, err := coverage.AddedLines(diff)
	if err != nil {
		return coverage.Patch{}, "", fmt.Errorf("git diff: %w", err)
	}
	run := p.TestRun(ctx, minor, LevelAll)
	xml, err := run.Reports.File("coverage.xml").Contents(ctx)
	if err != nil {
		if run.Err != nil {
			return coverage.Patch{}, "", fmt.Errorf("the tests left no coverage: %w", run.Err)
		}
		return coverage.Patch{}, "", fmt.Errorf("reading coverage.xml: %w", err)
	}
	lines, err := coverage.ParseCobertura([]byte(xml), "/src")
	if err != nil {
		return coverage.Patch{}, "", err
	}
	patch := coverage.PatchCoverage(added, lines, PatchTarget)
	report := fmt.Sprintf("Against %s, Python %s.\n%s", base, minor, patch.Report())
	var failures []string
	if run.Err != nil {
		failures = append(failures, "tests: "+run.Failure)
	}
	if !patch.Passed() {
		failures = append(failures, fmt.Sprintf("patch coverage %.2f%% is below %d%%", patch.Percent(), PatchTarget))
	}
	if len(failures) > 0 {
		return patch, report, &PatchError{Failures: failures, Report: report}
	}
	return patch, report, nil
}

// PatchError is a patch gate that measured and failed: its failures and the report.
type PatchError struct {
	Failures []string
	Report   string
}

func (e *PatchError) Error() string {
	return fmt.Sprintf("patch-coverage failed: %s\n%s", strings.Join(e.Failures, "; "), e.Report)
}

// PatchReportFile is the patch report's name among the reports PatchReports returns.
const PatchReportFile = "patch-coverage.txt"

// PatchReports runs PatchCoverage and returns its report and verdict.json whatever the
// verdict, so a caller exports them before failing on the verdict. It fails only when
// nothing was measured (a bad --base, no history, no coverage left by the tests).
func (p *Pipeline) PatchReports(ctx context.Context, base, minor string) (*dagger.Directory, Verdict, error) {
	_, report, err := p.PatchCoverage(ctx, base, minor)
	var failed *PatchError
	switch {
	case errors.As(err, &failed):
		v := NewVerdict("Patch coverage", failed.Failures...)
		return WithVerdict(p.Client.Directory().WithNewFile(PatchReportFile, report), v), v, nil
	case err != nil:
		return nil, Verdict{}, err
	}
	v := NewVerdict("Patch coverage")
	return WithVerdict(p.Client.Directory().WithNewFile(PatchReportFile, report), v), v, nil
}
