package modelrelease

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"dagger.io/dagger"

	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/models"
)

// RepoDistDir is where the template's build target writes the wheel and sdist, in the
// checkout: what `make check-artifacts` leaves for Shipyard's artifact rules.
const RepoDistDir = "/repo/dist"

// CITargets are the targets the repository CI of a model repository runs, as the seed
// names them: make lint test check-artifacts.
var CITargets = []string{TargetLint, TargetTest, TargetCheckArtifacts}

// CIReport is the outcome of ModelCI.
type CIReport struct {
	Summary   jobs.Summary
	Artifacts ArtifactReport
}

// Dir renders the report as a directory: summary.md (the table), results.json (every
// job) and, once the artifacts were read, check-artifacts.txt.
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
	return dir, nil
}

// ModelCI is the repository CI of a model repository: on the checkout as it is, with no
// regeneration, it installs the locked environment and runs the repository's own targets
// concurrently — lint (ruff and mypy in the template), typecheck when the Makefile has
// one, test, and check-artifacts, after which Shipyard's artifact rules check the wheel
// and sdist the target left in dist/ against the checkout. A Makefile without one of
// CITargets is an error naming it before anything runs. The graph holds no secret. The
// error, when a job failed, carries the summary table; the report is returned either way.
func (e Env) ModelCI(ctx context.Context, repo *dagger.Directory) (CIReport, error) {
	var r CIReport
	makefile, err := repo.File(MakefilePath).Contents(ctx)
	if err != nil {
		return r, fmt.Errorf("model-ci: %s: %w (the repository CI runs make %s)", MakefilePath, err, strings.Join(CITargets, " "))
	}
	if err := models.RequireTargets(MakefilePath, makefile, "model-ci", CITargets...); err != nil {
		return r, fmt.Errorf("model-ci: %w", err)
	}
	checks, err := ChecksFor(makefile, "model-ci")
	if err != nil {
		return r, fmt.Errorf("model-ci: %w", err)
	}
	tree, err := ReadTree(ctx, repo, DefaultTreeLimits)
	if err != nil {
		return r, fmt.Errorf("model-ci: reading the checkout: %w", err)
	}
	pkgDir, err := FindPackageDir(tree)
	if err != nil {
		return r, fmt.Errorf("model-ci: %w", err)
	}
	ctr, err := e.python(repo.Filter(dagger.DirectoryFilterOpts{Exclude: notRepository}))
	if err != nil {
		return r, fmt.Errorf("model-ci: %w", err)
	}
	if ctr, err = e.withMake(ctr); err != nil {
		return r, fmt.Errorf("model-ci: %w", err)
	}
	ctr = ctr.WithExec(syncArgs)

	start := time.Now()
	_, err = ctr.Sync(ctx)
	r.Summary.Jobs = append(r.Summary.Jobs, jobs.Result("install", time.Since(start), err))
	if err != nil {
		for _, c := range append(checks, makeCheck(TargetCheckArtifacts)) {
			r.Summary.Jobs = append(r.Summary.Jobs, jobs.JobResult{Name: c.Name, Status: jobs.Skipped, Reason: "the locked environment did not install"})
		}
		return r, fmt.Errorf("model-ci: %w", r.Summary.Err())
	}
	done := make(chan jobs.JobResult, 1)
	go func() {
		start := time.Now()
		report, err := e.checkArtifactsTarget(ctx, ctr, tree, pkgDir)
		r.Artifacts = report
		if err == nil {
			err = report.Err()
		}
		done <- jobs.Result(TargetCheckArtifacts, time.Since(start), err)
	}()
	r.Summary.Jobs = append(r.Summary.Jobs, runEach(ctx, ctr, "", checks)...)
	r.Summary.Jobs = append(r.Summary.Jobs, <-done)
	if err := r.Summary.Err(); err != nil {
		return r, fmt.Errorf("model-ci: %w", err) // the error carries the table
	}
	return r, nil
}

// checkArtifactsTarget runs the repository's check-artifacts target in ctr's /repo and
// applies the artifact rules to the wheel and sdist it left in dist/.
func (e Env) checkArtifactsTarget(ctx context.Context, ctr *dagger.Container, tree Tree, pkgDir string) (ArtifactReport, error) {
	project, err := ReadProject(tree[pyprojectPath])
	if err != nil {
		return ArtifactReport{}, err
	}
	built, err := readBuilt(ctx, ctr.WithExec([]string{"make", TargetCheckArtifacts}), RepoDistDir, "make "+TargetCheckArtifacts)
	if err != nil {
		return ArtifactReport{}, err
	}
	return ArtifactReport{
		Project: project, PackageDir: pkgDir, WheelName: built.WheelName, SdistName: built.SdistName,
		Problems: checkBuilt(tree, pkgDir, built), Dist: built.Dist,
	}, nil
}
