package modelrelease

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"dagger.io/dagger"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/models"
)

// CITargets returns the make targets model-ci needs a model repository to have: the
// template's lint (ruff and mypy) and test. The seed's check-artifacts is Shipyard's own
// check of the wheel and sdist that uv build makes; a repository that also has a
// check-artifacts target gets it run too.
func CITargets() []string {
	return []string{TargetLint, TargetTest}
}

// targetRecipes are the template's recipes, for the error that asks to add a target.
var targetRecipes = map[string]string{
	TargetLint: "lint:\n\tuv run ruff check cloudcoil tests\n\tuv run ruff format --check cloudcoil tests\n\tuv run mypy -p cloudcoil.models.<module>",
	TargetTest: "test:\n\tuv run python -m pytest",
}

// ciSyncArgs install the locked environment with every extra and the dev group, as the
// template's ci.yml does (uv sync --all-extras --dev).
var ciSyncArgs = []string{"uv", "sync", "--frozen", "--all-extras"}

// CIReportFiles are the test reports model-ci exports beside its summary: what the
// template's pytest options write at the repository's root (--cov-report=xml, --junitxml),
// which its ci.yml uploaded to Codecov.
func CIReportFiles() []string { return []string{"coverage.xml", "junit.xml"} }

// CIReport is the outcome of ModelCI.
type CIReport struct {
	Summary   jobs.Summary
	Artifacts ArtifactReport
	// TestReports holds CIReportFiles as the test run on the oldest Python tested wrote
	// them (those it wrote): the template's ci.yml uploaded the coverage of its oldest
	// Python, 3.10. Nil when that run failed.
	TestReports *dagger.Directory
}

// Dir renders the report as a directory: summary.md (the table), results.json (every
// job), once the artifacts were read check-artifacts.txt, and the test reports
// (coverage.xml, junit.xml) the tests wrote.
func (r CIReport) Dir(c *dagger.Client) (*dagger.Directory, error) {
	results, err := json.MarshalIndent(r.Summary, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("model-ci: results.json: %w", err)
	}
	dir := c.Directory().
		WithNewFile("summary.md", r.Summary.Table()).
		WithNewFile("results.json", string(results)+"\n")
	if r.Artifacts.WheelName != "" {
		dir = dir.WithNewFile("check-artifacts.txt", r.Artifacts.Text())
	}
	if r.TestReports != nil {
		dir = dir.WithDirectory(".", r.TestReports)
	}
	return dir, nil
}

// ModelCI is the repository CI of a model repository, as the template's own ci.yml runs
// it: on the checkout as it is, with no regeneration, it installs the locked environment
// with all extras and runs the repository's targets concurrently: lint (ruff and mypy in
// the template) and typecheck when the Makefile has one on the default Python, and test
// on every Python version the classifiers or requires-python name, each on its own
// pinned image, in parallel. Meanwhile uv build makes the wheel and sdist and
// Shipyard's artifact rules check them against the checkout (the artifacts job); a
// repository with a check-artifacts target of its own has it run as well. A Makefile
// without lint or test is an error naming the target and the template's recipe before
// anything runs. The graph holds no secret. The error, when a job failed, carries the
// summary table; the report is returned either way. Given only, the tests run on those
// Python versions alone, each of which the repository must support.
func (e Env) ModelCI(ctx context.Context, repo *dagger.Directory, only ...string) (CIReport, error) {
	var r CIReport
	makefile, err := repo.File(MakefilePath).Contents(ctx)
	if err != nil {
		return r, fmt.Errorf("model-ci: %s: %w (the repository CI runs make %s)", MakefilePath, err, strings.Join(CITargets(), " "))
	}
	if err := requireCITargets(makefile); err != nil {
		return r, err
	}
	tree, err := ReadTree(ctx, repo, DefaultTreeLimits())
	if err != nil {
		return r, fmt.Errorf("model-ci: reading the checkout: %w", err)
	}
	pkgDir, err := FindPackageDir(tree)
	if err != nil {
		return r, fmt.Errorf("model-ci: %w", err)
	}
	pythons, err := testPythons(tree[pyprojectPath], slices.Sorted(maps.Keys(e.Pins.Python)), only)
	if err != nil {
		return r, fmt.Errorf("model-ci: %w", err)
	}
	source := repo.Filter(dagger.DirectoryFilterOpts{Exclude: notRepository})
	installed := func(python string) (*dagger.Container, error) {
		env := e
		env.Python = python
		ctr, err := env.python(source)
		if err != nil {
			return nil, err
		}
		if ctr, err = env.withMake(ctr); err != nil {
			return nil, err
		}
		return ctr.WithExec(ciSyncArgs), nil
	}
	ctr, err := installed(e.Python)
	if err != nil {
		return r, fmt.Errorf("model-ci: %w", err)
	}
	checks := ciChecks(models.ParseMakefile(makefile))

	start := time.Now()
	_, err = ctr.Sync(ctx)
	r.Summary.Jobs = append(r.Summary.Jobs, jobs.Result("install", time.Since(start), err))
	if err != nil {
		r.Summary.Jobs = append(r.Summary.Jobs, notInstalled(checks, pythons)...)
		return r, fmt.Errorf("model-ci: %w", r.Summary.Err())
	}
	tests := make([]jobs.JobResult, len(pythons))
	oldest := slices.MinFunc(pythons, compareMinor)
	var checked []jobs.JobResult
	artifacts, err := e.ciJobs(ctx, &r, ctr, tree, pkgDir, func(g *fanout.Group) {
		for i, v := range pythons {
			g.Go(func(ctx context.Context) error {
				start := time.Now()
				c, err := installed(v)
				if err == nil {
					c, err = c.WithExec([]string{"make", TargetTest}).Sync(ctx)
				}
				tests[i] = jobs.Result(testJob(v), time.Since(start), err)
				if err == nil && v == oldest {
					r.TestReports = c.Directory(".").Filter(dagger.DirectoryFilterOpts{Include: CIReportFiles()})
				}
				return nil
			})
		}
		g.Go(func(ctx context.Context) error {
			checked = runEach(ctx, ctr, "", checks)
			return nil
		})
	})
	if err != nil {
		return r, fmt.Errorf("model-ci: %w", err) // cancelled: a job did not run
	}
	r.Summary.Jobs = append(r.Summary.Jobs, checked...)
	r.Summary.Jobs = append(r.Summary.Jobs, tests...)
	r.Summary.Jobs = append(r.Summary.Jobs, artifacts)
	if err := r.Summary.Err(); err != nil {
		return r, fmt.Errorf("model-ci: %w", err) // the error carries the table
	}
	return r, nil
}

// ciJobs runs the artifact job (its report into r) and the jobs more adds concurrently;
// each job's failure is its row.
func (e Env) ciJobs(ctx context.Context, r *CIReport, ctr *dagger.Container, tree Tree, pkgDir string, more func(*fanout.Group)) (jobs.JobResult, error) {
	var artifacts jobs.JobResult
	g := fanout.New(ctx, 0)
	g.Go(func(ctx context.Context) error {
		start := time.Now()
		report, err := e.checkBuild(ctx, ctr, tree, pkgDir)
		r.Artifacts = report
		if err == nil {
			err = report.Err()
		}
		artifacts = jobs.Result(ArtifactsJob, time.Since(start), err)
		return nil
	})
	more(g)
	return artifacts, g.Wait()
}

// requireCITargets fails, naming the template's recipe of each, when the Makefile lacks a
// target model-ci runs.
func requireCITargets(makefile string) error {
	err := models.RequireTargets(MakefilePath, makefile, "model-ci", CITargets()...)
	if err == nil {
		return nil
	}
	var recipes []string
	for _, t := range CITargets() {
		if !models.ParseMakefile(makefile).Has(t) {
			recipes = append(recipes, targetRecipes[t])
		}
	}
	return fmt.Errorf("model-ci: %w; the Cloudcoil template's:\n%s", err, strings.Join(recipes, "\n\n"))
}

// ciChecks are the make targets model-ci runs beside the tests: lint, and typecheck and
// check-artifacts where the Makefile has them.
func ciChecks(m models.Makefile) []Check {
	checks := []Check{makeCheck(TargetLint)}
	if m.Has(TargetTypecheck) {
		checks = append(checks, makeCheck(TargetTypecheck))
	}
	if m.Has(TargetCheckArtifacts) {
		checks = append(checks, makeCheck(TargetCheckArtifacts))
	}
	return checks
}

// notInstalled are the skipped rows of every job when the locked environment did not install.
func notInstalled(checks []Check, pythons []string) []jobs.JobResult {
	const why = "the locked environment did not install"
	var rows []jobs.JobResult
	for _, c := range checks {
		rows = append(rows, jobs.JobResult{Name: c.Name, Status: jobs.Skipped, Reason: why})
	}
	for _, v := range pythons {
		rows = append(rows, jobs.JobResult{Name: testJob(v), Status: jobs.Skipped, Reason: why})
	}
	return append(rows, jobs.JobResult{Name: ArtifactsJob, Status: jobs.Skipped, Reason: why})
}

// ArtifactsJob is model-ci's job that builds with uv build and runs Shipyard's artifact
// rules.
const ArtifactsJob = "artifacts"

// testJob names the test job of one Python version.
func testJob(python string) string { return TargetTest + " (Python " + python + ")" }

// checkBuild builds the wheel and sdist with uv build in ctr's /repo and applies the
// artifact rules to them.
func (e Env) checkBuild(ctx context.Context, ctr *dagger.Container, tree Tree, pkgDir string) (ArtifactReport, error) {
	project, err := ReadProject(tree[pyprojectPath])
	if err != nil {
		return ArtifactReport{}, err
	}
	built, err := e.build(ctx, ctr)
	if err != nil {
		return ArtifactReport{}, err
	}
	return ArtifactReport{
		Project: project, PackageDir: pkgDir, WheelName: built.WheelName, SdistName: built.SdistName,
		Problems: checkBuilt(tree, pkgDir, built), Dist: built.Dist,
	}, nil
}
