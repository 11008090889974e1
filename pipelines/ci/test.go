package ci

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"dagger.io/dagger"
	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/internal/pins"
)

// TestContainer runs the unit and integration tests on one Python version under coverage and
// enforces the project's own threshold (coverage report fails below fail_under), then writes
// coverage.xml for upload. The e2e level skips itself without TESK_E2E.
func (p *Pipeline) TestContainer(minor string) (*dagger.Container, error) {
	ctr, err := p.python(minor, p.codeSource())
	if err != nil {
		return nil, fmt.Errorf("test (Python %s): %w", minor, err)
	}
	return ctr.
		WithExec([]string{"uv", "sync", "--frozen", "--extra", "dev"}).
		WithExec([]string{"uv", "run", "coverage", "run", "-m", "pytest"}).
		WithExec([]string{"uv", "run", "coverage", "report", "-m"}).
		WithExec([]string{"uv", "run", "coverage", "xml", "-o", "/out/coverage.xml"}), nil
}

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

// VersionResult is the outcome of the tests on one Python version.
type VersionResult struct {
	Python   string
	Coverage *dagger.File
	Err      error
}

// Test runs the matrix in parallel. A failing version does not hide the others: every
// version runs to its end, and the error names each one that failed. The returned directory
// holds <version>/coverage.xml for every version that passed.
func (p *Pipeline) Test(ctx context.Context, versions []string) (*dagger.Directory, []VersionResult, error) {
	results := make([]VersionResult, len(versions))
	var wg sync.WaitGroup
	for i, v := range versions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = VersionResult{Python: v}
			ctr, err := p.TestContainer(v)
			if err != nil {
				results[i].Err = err
				return
			}
			cov := ctr.File("/out/coverage.xml")
			if _, err := cov.Sync(ctx); err != nil {
				results[i].Err = fmt.Errorf("test (Python %s): %w", v, err)
				return
			}
			results[i].Coverage = cov
		}()
	}
	wg.Wait()
	out := p.Client.Directory()
	var failed []string
	for _, r := range results {
		if r.Err != nil {
			failed = append(failed, fmt.Sprintf("Python %s: %s", r.Python, jobs.FirstErrorLine(r.Err)))
			continue
		}
		out = out.WithFile(r.Python+"/coverage.xml", r.Coverage)
	}
	if len(failed) > 0 {
		sort.Strings(failed)
		return out, results, fmt.Errorf("tests failed on %d of %d Python versions: %s", len(failed), len(versions), strings.Join(failed, "; "))
	}
	return out, results, nil
}
