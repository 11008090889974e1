package modelrelease

import (
	"context"
	"fmt"
	"sync"
	"time"

	"dagger.io/dagger"

	"dagger/shipyard/internal/jobs"
)

// Generation and checks of a model repository. The commands are the conventional ones a
// maintainer runs in a generated checkout; every check starts from the same generated
// container, so they run concurrently and generation runs once.
var (
	// generateArgs is the generator the template configures in pyproject.toml
	// ([[tool.cloudcoil.codegen.models]]), run from the locked environment.
	generateArgs = []string{"uv", "run", "--frozen", "cloudcoil-model-codegen"}
	syncArgs     = []string{"uv", "sync", "--frozen"}
)

// Check is one named check of a generated repository: its commands run in order.
type Check struct {
	Name     string
	Commands [][]string
}

// Checks are what a generated repository must pass before it is built: ruff's lint and
// format check, mypy, and the model tests.
var Checks = []Check{
	{Name: "lint", Commands: [][]string{
		{"uv", "run", "--frozen", "ruff", "check", "."},
		{"uv", "run", "--frozen", "ruff", "format", "--check", "."},
	}},
	{Name: "mypy", Commands: [][]string{{"uv", "run", "--frozen", "mypy", "src"}}},
	{Name: "test", Commands: [][]string{{"uv", "run", "--frozen", "pytest"}}},
}

// lockArgs refreshes the Cloudcoil entry of uv.lock: to exactly pin when given (the
// published version the generator repository requires), else to the newest release the
// project's compatible range allows.
func lockArgs(pin string) []string {
	pkg := cloudcoilPackage
	if pin != "" {
		pkg += "==" + pin
	}
	return []string{"uv", "lock", "--upgrade-package", pkg}
}

// generate refreshes the lockfile, installs the locked environment and runs the generator
// in a model repository. The result's /repo is the generated repository.
func (e Env) generate(repo *dagger.Directory, cloudcoilPin string) (*dagger.Container, error) {
	ctr, err := e.python(repo)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	return ctr.
		WithExec(lockArgs(cloudcoilPin)).
		WithExec(syncArgs).
		WithExec(generateArgs), nil
}

// runChecks runs the generation (by syncing generated) and then every check concurrently,
// one summary row each, named with prefix ("cert-manager: lint"). A failed generation
// skips the checks, which would only repeat its error.
func runChecks(ctx context.Context, generated *dagger.Container, prefix string) []jobs.JobResult {
	start := time.Now()
	_, err := generated.Sync(ctx)
	rows := []jobs.JobResult{jobs.Result(prefix+"generate", time.Since(start), err)}
	if err != nil {
		for _, c := range Checks {
			rows = append(rows, jobs.JobResult{Name: prefix + c.Name, Status: jobs.Skipped, Reason: "generation failed"})
		}
		return rows
	}
	results := make([]jobs.JobResult, len(Checks))
	var wg sync.WaitGroup
	for i, c := range Checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctr := generated
			for _, args := range c.Commands {
				ctr = ctr.WithExec(args)
			}
			start := time.Now()
			_, err := ctr.Sync(ctx)
			results[i] = jobs.Result(prefix+c.Name, time.Since(start), err)
		}()
	}
	wg.Wait()
	return append(rows, results...)
}
