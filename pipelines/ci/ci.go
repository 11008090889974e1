package ci

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"dagger.io/dagger"

	"dagger/shipyard/internal/conventional"
	"dagger/shipyard/internal/jobs"
)

// Options of a whole CI run.
type Options struct {
	// PRTitle is checked when given (pull requests); pushes have none and skip the job.
	PRTitle string
	// Python overrides the matrix read from pyproject.toml.
	Python []string
	// Version is the package version for the images; empty derives it.
	Version string
	// Level is the test level (LevelAll when empty).
	Level string
	// Namespace is where the end-to-end tests run (DefaultNamespace when empty).
	Namespace string
}

// CheckPRTitle is the PR-title job: Conventional Commits as the common checker applies them,
// at most 50 characters, since squash merges use the title as the commit message.
func CheckPRTitle(title string) error {
	return conventional.CheckTitle(title)
}

// Run is the whole CI workflow: every job concurrently, each image built once and shared by
// the scan and the end-to-end tests, then the "CI passed" gate. A failing job does not stop
// or hide the others, nor lose its reports. The directory holds the artifacts whatever the
// verdict: coverage/<python>/ (coverage.xml, pytest.txt, coverage.txt), site/, scan/<image>/
// (JSON, SARIF, summary.txt), summary.md (the table) and verdict.json (the gate).
func (p *Pipeline) Run(ctx context.Context, opts Options) (jobs.Summary, *dagger.Directory, error) {
	if err := p.Pins.Validate(); err != nil {
		return jobs.Summary{}, nil, err
	}
	versions, err := p.TestVersions(ctx, opts.Python)
	if err != nil {
		return jobs.Summary{}, nil, fmt.Errorf("ci: %w", err)
	}
	images, imagesErr := p.Images(ctx, opts.Version)

	var (
		mu        sync.Mutex
		results   []jobs.JobResult
		artifacts = p.Client.Directory()
		wg        sync.WaitGroup
	)
	record := func(r jobs.JobResult, add func(*dagger.Directory) *dagger.Directory) {
		mu.Lock()
		defer mu.Unlock()
		results = append(results, r)
		if add != nil {
			artifacts = add(artifacts)
		}
	}
	job := func(name string, run func() (func(*dagger.Directory) *dagger.Directory, error)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			add, err := run()
			record(jobs.Result(name, time.Since(start), err), add)
		}()
	}

	if opts.PRTitle == "" {
		record(jobs.JobResult{Name: "PR title", Status: jobs.Skipped, Reason: "no pull request title given (--pr-title)"}, nil)
	} else {
		job("PR title", func() (func(*dagger.Directory) *dagger.Directory, error) {
			return nil, CheckPRTitle(opts.PRTitle)
		})
	}
	job("Lint", func() (func(*dagger.Directory) *dagger.Directory, error) {
		_, err := p.Lint(ctx)
		return nil, err
	})
	level := opts.Level
	if level == "" {
		level = LevelAll
	}
	for _, v := range versions {
		job("Test (Python "+v+")", func() (func(*dagger.Directory) *dagger.Directory, error) {
			r := p.TestRun(ctx, v, level)
			return func(d *dagger.Directory) *dagger.Directory {
				return d.WithDirectory("coverage/"+v, r.Reports)
			}, r.Err
		})
	}
	job("Docs", func() (func(*dagger.Directory) *dagger.Directory, error) {
		site, err := p.DocsSite(ctx)
		if err != nil {
			return nil, err
		}
		return func(d *dagger.Directory) *dagger.Directory { return d.WithDirectory("site", site) }, nil
	})
	if imagesErr != nil {
		record(jobs.Result("Images", 0, imagesErr), nil)
		for _, name := range []string{"End-to-end test", "Scan image"} {
			record(jobs.JobResult{Name: name, Status: jobs.Skipped, Reason: "the images could not be built"}, nil)
		}
	} else {
		job("End-to-end test", func() (func(*dagger.Directory) *dagger.Directory, error) {
			_, err := p.E2E(ctx, images, opts.Namespace)
			return nil, err
		})
		ignore, ignoreErr := p.IgnoreFileContent(ctx)
		for _, img := range images {
			job("Scan image ("+img.Spec.Name+")", func() (func(*dagger.Directory) *dagger.Directory, error) {
				if ignoreErr != nil {
					return nil, ignoreErr
				}
				dir, _, err := p.ScanReports(ctx, ImageTargets([]Image{img}), ignore)
				if dir == nil {
					return nil, err
				}
				return func(d *dagger.Directory) *dagger.Directory { return d.WithDirectory("scan/"+img.Spec.Name, dir) }, err
			})
		}
	}
	wg.Wait()
	summary := jobs.Summary{Jobs: sortJobs(results)}
	var failed []string
	for _, j := range summary.Jobs {
		if j.Status == jobs.Failed {
			failed = append(failed, j.Name+": "+j.Reason)
		}
	}
	artifacts = WithVerdict(artifacts.WithNewFile("summary.md", summary.Table()), NewVerdict("CI", failed...))
	return summary, artifacts, summary.Err()
}

// sortJobs orders rows as the workflow lists its jobs, so the table reads the same every run.
func sortJobs(results []jobs.JobResult) []jobs.JobResult {
	order := []string{"PR title", "Lint", "Test", "End-to-end", "Docs", "Images", "Scan"}
	rank := func(name string) int {
		for i, prefix := range order {
			if strings.HasPrefix(name, prefix) {
				return i
			}
		}
		return len(order)
	}
	out := append([]jobs.JobResult(nil), results...)
	sort.SliceStable(out, func(i, j int) bool {
		if ri, rj := rank(out[i].Name), rank(out[j].Name); ri != rj {
			return ri < rj
		}
		return out[i].Name < out[j].Name
	})
	return out
}
