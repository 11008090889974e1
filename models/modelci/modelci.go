package modelci

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/models"
	"dagger/shipyard/models/modelenv"
)

// CITargets returns the make targets model-ci needs a model repository to have: the
// template's lint (ruff and mypy) and test. The seed's check-artifacts is Shipyard's own
// check of the wheel and sdist that uv build makes; a repository that also has a
// check-artifacts target gets it run too.
func CITargets() []string {
	return []string{modelenv.TargetLint, modelenv.TargetTest}
}

// targetRecipes are the template's recipes, for the error that asks to add a target.
var targetRecipes = map[string]string{
	modelenv.TargetLint: "lint:\n\tuv run ruff check cloudcoil tests\n\tuv run ruff format --check cloudcoil tests\n\tuv run mypy -p cloudcoil.models.<module>",
	modelenv.TargetTest: "test:\n\tuv run python -m pytest",
}

// ciSyncArgs install the locked environment with every extra and the dev group, as the
// template's ci.yml does (uv sync --all-extras --dev).
var ciSyncArgs = []string{"uv", "sync", "--frozen", "--all-extras"}

// CIReportFiles are the test reports model-ci exports beside its summary: what the
// template's pytest options write at the repository's root (--cov-report=xml, --junitxml),
// which its ci.yml uploaded to Codecov.
func CIReportFiles() []string { return []string{"coverage.xml", "junit.xml"} }

// CIReport is the outcome of RepositoryCI.
type CIReport struct {
	Summary   jobs.Summary
	Artifacts modelenv.ArtifactReport
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
		return nil, fmt.Errorf("results.json: %w", err)
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

// RepositoryCI is the repository CI of a model repository, as the template's own ci.yml runs
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
func RepositoryCI(ctx context.Context, e modelenv.Env, repo *dagger.Directory, only ...string) (CIReport, error) {
	run, err := readCI(ctx, e, repo, only)
	if err != nil {
		return CIReport{}, err
	}
	table := jobs.NewTable(ctx)
	if err := table.Do("install", run.install); err != nil {
		for _, j := range run.jobs() {
			table.Skip("the locked environment did not install", j.name)
		}
	} else {
		for _, j := range run.jobs() {
			table.Go(j.name, j.run)
		}
	}
	rows, err := table.Wait()
	run.report.Summary.Jobs = rows
	if err != nil {
		return run.report, err // cancelled: a job did not run
	}
	if err := run.report.Summary.Err(); err != nil {
		return run.report, err // the error carries the table
	}
	return run.report, nil
}

// modelCI is one run of model-ci: what its jobs read, and the report they fill.
type modelCI struct {
	env     modelenv.Env
	source  *dagger.Directory // the checkout without history or build output
	ctr     *dagger.Container // the locked environment on the default Python
	tree    modelenv.Tree
	pkgDir  string
	checks  []modelenv.Check
	pythons []string
	report  CIReport
}

// readCI reads what model-ci needs before any job runs: the Makefile's targets, the
// checkout, its package and the Pythons to test. Each failure is model-ci's error.
func readCI(ctx context.Context, e modelenv.Env, repo *dagger.Directory, only []string) (*modelCI, error) {
	makefile, err := repo.File(modelenv.MakefilePath).Contents(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (the repository CI runs make %s)", modelenv.MakefilePath, err, strings.Join(CITargets(), " "))
	}
	if err := requireCITargets(makefile); err != nil {
		return nil, err
	}
	c := &modelCI{env: e, checks: ciChecks(models.ParseMakefile(makefile)), source: repo.Filter(dagger.DirectoryFilterOpts{Exclude: modelenv.NotRepository()})}
	if c.tree, err = modelenv.ReadTree(ctx, repo, modelenv.DefaultTreeLimits()); err != nil {
		return nil, fmt.Errorf("reading the checkout: %w", err)
	}
	if c.pkgDir, err = modelenv.FindPackageDir(c.tree); err != nil {
		return nil, err
	}
	if c.pythons, err = testPythons(c.tree[modelenv.PyprojectPath], slices.Sorted(maps.Keys(e.Pins.Python)), only); err != nil {
		return nil, err
	}
	if c.ctr, err = installed(e, c.source, e.Python); err != nil {
		return nil, err
	}
	return c, nil
}

// installed is source on python with make and the locked environment, every extra and the
// dev group, as the template's ci.yml installs it.
func installed(e modelenv.Env, source *dagger.Directory, python string) (*dagger.Container, error) {
	e.Python = python
	ctr, err := e.PythonContainer(source)
	if err != nil {
		return nil, err
	}
	if ctr, err = e.WithMake(ctr); err != nil {
		return nil, err
	}
	return ctr.WithExec(ciSyncArgs), nil
}

// ciJob is one job of model-ci after the install.
type ciJob struct {
	name string
	run  func(ctx context.Context) error
}

// install is the install job: the locked environment every other job needs.
func (c *modelCI) install(ctx context.Context) error {
	_, err := c.ctr.Sync(ctx)
	return err
}

// jobs are model-ci's jobs after the install, in the order of their rows: the make
// checks, the tests on each Python, and the artifacts job.
func (c *modelCI) jobs() []ciJob {
	var out []ciJob
	for _, check := range c.checks {
		out = append(out, ciJob{check.Name, check.On(c.ctr)})
	}
	oldest := slices.MinFunc(c.pythons, compareMinor)
	for _, v := range c.pythons {
		out = append(out, ciJob{testJob(v), c.test(v, v == oldest)})
	}
	return append(out, ciJob{ArtifactsJob, c.artifacts})
}

// test is the test job of one Python, on its own install. The oldest Python's run keeps
// its test reports: the template's ci.yml uploaded the coverage of its oldest, 3.10.
func (c *modelCI) test(python string, oldest bool) func(context.Context) error {
	return func(ctx context.Context) error {
		ctr, err := installed(c.env, c.source, python)
		if err == nil {
			ctr, err = ctr.WithExec([]string{"make", modelenv.TargetTest}).Sync(ctx)
		}
		if err == nil && oldest {
			c.report.TestReports = ctr.Directory(".").Filter(dagger.DirectoryFilterOpts{Include: CIReportFiles()})
		}
		return err
	}
}

// artifacts is the artifacts job: uv build's wheel and sdist checked against the
// checkout, whose side (project, files, rules) is ready before the build, so the archives
// are read and checked in one stay in package models. Its report is the run's.
func (c *modelCI) artifacts(ctx context.Context) error {
	project, err := modelenv.ReadProject(c.tree[modelenv.PyprojectPath])
	if err != nil {
		return err
	}
	checkout, rules := c.tree.FS(), modelenv.ArtifactRules(c.pkgDir)
	built, err := c.env.Build(ctx, c.ctr)
	if err != nil {
		return err
	}
	c.report.Artifacts = modelenv.ArtifactReport{
		Project: project, PackageDir: c.pkgDir, WheelName: built.WheelName, SdistName: built.SdistName,
		Problems: rules.Check(checkout, c.pkgDir, built.Wheel, built.Sdist), Dist: built.Dist,
	}
	return c.report.Artifacts.Err()
}

// requireCITargets fails, naming the template's recipe of each, when the Makefile lacks a
// target model-ci runs.
func requireCITargets(makefile string) error {
	err := models.RequireTargets(modelenv.MakefilePath, makefile, functions.ModelCi, CITargets()...)
	if err == nil {
		return nil
	}
	var recipes []string
	for _, t := range CITargets() {
		if !models.ParseMakefile(makefile).Has(t) {
			recipes = append(recipes, targetRecipes[t])
		}
	}
	return fmt.Errorf("%w; the Cloudcoil template's:\n%s", err, strings.Join(recipes, "\n\n"))
}

// ciChecks are the make targets model-ci runs beside the tests: lint, and typecheck and
// check-artifacts where the Makefile has them.
func ciChecks(m models.Makefile) []modelenv.Check {
	checks := []modelenv.Check{modelenv.MakeCheck(modelenv.TargetLint)}
	if m.Has(modelenv.TargetTypecheck) {
		checks = append(checks, modelenv.MakeCheck(modelenv.TargetTypecheck))
	}
	if m.Has(modelenv.TargetCheckArtifacts) {
		checks = append(checks, modelenv.MakeCheck(modelenv.TargetCheckArtifacts))
	}
	return checks
}

// ArtifactsJob is model-ci's job that builds with uv build and runs Shipyard's artifact
// rules.
const ArtifactsJob = "artifacts"

// testJob names the test job of one Python version.
func testJob(python string) string { return modelenv.TargetTest + " (Python " + python + ")" }
