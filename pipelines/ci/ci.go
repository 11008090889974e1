package ci

import (
	"context"
	"sort"
	"strings"
	"sync"

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
		return jobs.Summary{}, nil, err
	}
	images, imagesErr := p.Images(ctx, opts.Version)
	r := &ciRun{artifacts: p.Client.Directory(), jobs: jobs.NewTable(ctx)}
	p.sourceJobs(r, opts, versions)
	p.imageJobs(ctx, r, opts, images, imagesErr)
	rows, err := r.jobs.Wait()
	if err != nil {
		return jobs.Summary{}, nil, err // cancelled: a job did not run
	}
	summary := jobs.Summary{Jobs: sortJobs(rows)}
	var failed []string
	for _, j := range summary.Jobs {
		if j.Status == jobs.Failed {
			failed = append(failed, j.Name+": "+j.Reason)
		}
	}
	artifacts := WithVerdict(r.artifacts.WithNewFile("summary.md", summary.Table()), NewVerdict("CI", failed...))
	return summary, artifacts, summary.Err()
}

// addArtifact adds what a job produced to the run's artifacts (nil: nothing).
type addArtifact func(*dagger.Directory) *dagger.Directory

// ciRun collects the jobs' artifacts as they finish; the table keeps their rows.
type ciRun struct {
	mu        sync.Mutex
	artifacts *dagger.Directory
	jobs      *jobs.Table
}

// job starts run concurrently; the table records its row when it ends (a failed job is
// its row, not the run's error), and what it produced joins the artifacts.
func (r *ciRun) job(name string, run func(ctx context.Context) (addArtifact, error)) {
	r.jobs.Go(name, func(ctx context.Context) error {
		add, err := run(ctx)
		if add != nil {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.artifacts = add(r.artifacts)
		}
		return err
	})
}

// sourceJobs start the jobs that read the source only: PR title, lint, the test matrix, docs.
func (p *Pipeline) sourceJobs(r *ciRun, opts Options, versions []string) {
	prTitle := opts.PRTitle
	if prTitle == "" {
		r.jobs.Skip("no pull request title given (--pr-title)", "PR title")
	} else {
		r.job("PR title", func(context.Context) (addArtifact, error) { return nil, CheckPRTitle(prTitle) })
	}
	r.job("Lint", func(ctx context.Context) (addArtifact, error) {
		_, err := p.Lint(ctx)
		return nil, err
	})
	level := opts.Level
	if level == "" {
		level = LevelAll
	}
	for _, v := range versions {
		r.job("Test (Python "+v+")", func(ctx context.Context) (addArtifact, error) {
			run := p.TestRun(ctx, v, level)
			return func(d *dagger.Directory) *dagger.Directory {
				return d.WithDirectory("coverage/"+v, run.Reports)
			}, run.Err
		})
	}
	r.job("Docs", func(ctx context.Context) (addArtifact, error) {
		site, err := p.DocsSite(ctx)
		if err != nil {
			return nil, err
		}
		return func(d *dagger.Directory) *dagger.Directory { return d.WithDirectory("site", site) }, nil
	})
}

// imageJobs start the jobs of the built images, each image built once: the end-to-end
// tests and one scan per image; when the images could not be built, they are skipped.
func (p *Pipeline) imageJobs(ctx context.Context, r *ciRun, opts Options, images []Image, imagesErr error) {
	if imagesErr != nil {
		r.jobs.Record(jobs.Result("Images", 0, imagesErr))
		r.jobs.Skip("the images could not be built", "End-to-end test", "Scan image")
		return
	}
	r.job("End-to-end test", func(ctx context.Context) (addArtifact, error) {
		_, err := p.E2E(ctx, images, opts.Namespace)
		return nil, err
	})
	ignore, ignoreErr := p.IgnoreFileContent(ctx)
	for _, img := range images {
		r.job("Scan image ("+img.Spec.Name+")", func(ctx context.Context) (addArtifact, error) {
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
