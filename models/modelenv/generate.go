package modelenv

import (
	"context"
	"fmt"
	"slices"
	"time"

	"dagger.io/dagger"

	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/models"
)

// Generation and checks of a model repository. The checks are the repository's own
// Makefile targets (the seed's `make lint test check-artifacts`), so a repository that
// changes its Makefile is checked by the rules it has; every check starts from the same
// generated container, so they run concurrently and generation runs once.
var (
	// generateArgs is the generator the template configures in pyproject.toml
	// ([[tool.cloudcoil.codegen.models]]), run from the locked environment.
	generateArgs = []string{"uv", "run", "--frozen", "cloudcoil-model-codegen"}
	syncArgs     = []string{"uv", "sync", "--frozen"}
	// removeGenerated is the first step of the template's gen-models target: the real
	// generator moves its files into an existing package and fails on any file already
	// there (generator.py 947–959), such as the __init__.py the template renders or the
	// models a checkout holds.
	removeGenerated = []string{"rm", "-rf", "cloudcoil/models"}
	// fixLint is the recipe's last step: the generator's own ruff ran in a temporary
	// folder, where cloudcoil is a third-party package; in the repository it is first-party,
	// so the template's lint target fails on the imports until fix-lint sorts them.
	fixLint = []string{"make", "fix-lint"}
	// genModels is the template's gen-models recipe, step by step.
	genModels = [][]string{removeGenerated, generateArgs, fixLint}
)

// GenModels is the template's gen-models recipe, step by step, as the generation runs it.
func GenModels() [][]string {
	out := make([][]string, len(genModels))
	for i, step := range genModels {
		out[i] = slices.Clone(step)
	}
	return out
}

// GeneratorDir is where the checkout's Cloudcoil project sits when its generator runs.
const GeneratorDir = "/cloudcoil-checkout"

// checkoutGenerateArgs runs the checkout's generator: uv layers the project at GeneratorDir,
// installed editable, over the generated repository's locked environment for this one
// command (uv run --with-editable), so the lock and the environment the checks use stay
// the published release's.
var checkoutGenerateArgs = []string{"uv", "run", "--frozen", "--with-editable", GeneratorDir, "cloudcoil-model-codegen"}

// CheckoutGenerator is the part of the Cloudcoil repository source an editable install of
// its generator needs: the project file, its readme and license, and the package.
func CheckoutGenerator(source *dagger.Directory) *dagger.Directory {
	return source.Filter(dagger.DirectoryFilterOpts{Include: []string{"pyproject.toml", "README.md", "LICENSE", "cloudcoil/"}})
}

// MakefilePath is the repository's Makefile, at the root.
const MakefilePath = "Makefile"

// The make targets Shipyard runs in a model repository. The template's lint target runs
// ruff and mypy; a repository with a separate typecheck target has it run too.
const (
	TargetLint           = "lint"
	TargetTypecheck      = "typecheck"
	TargetTest           = "test"
	TargetCheckArtifacts = "check-artifacts"
)

// Check is one named check of a generated repository: its commands run in order.
type Check struct {
	Name     string
	Commands [][]string
}

// MakeCheck is the check that runs one make target.
func MakeCheck(target string) Check {
	return Check{Name: target, Commands: [][]string{{"make", target}}}
}

// DefaultChecks are what a generated repository must pass before it is built, whatever its
// Makefile: its lint target (ruff and mypy in the template) and its tests.
func DefaultChecks() []Check { return []Check{MakeCheck(TargetLint), MakeCheck(TargetTest)} }

// ChecksFor are the checks a Makefile asks for: Checks, with typecheck after lint when
// the Makefile defines one. The error names each missing target and the Makefile.
func ChecksFor(makefile, command string) ([]Check, error) {
	if err := models.RequireTargets(MakefilePath, makefile, command, TargetLint, TargetTest); err != nil {
		return nil, err
	}
	checks := []Check{MakeCheck(TargetLint)}
	if models.ParseMakefile(makefile).Has(TargetTypecheck) {
		checks = append(checks, MakeCheck(TargetTypecheck))
	}
	return append(checks, MakeCheck(TargetTest)), nil
}

// readMakefile reads the repository's Makefile at /repo; a missing one is an error that
// says what Shipyard runs from it.
func readMakefile(ctx context.Context, ctr *dagger.Container) (string, error) {
	text, err := ctr.File("/repo/" + MakefilePath).Contents(ctx)
	if err != nil {
		return "", fmt.Errorf("%s: %w (a model repository's checks are its make targets %s, %s and %s, as the Cloudcoil template defines them)",
			MakefilePath, err, TargetLint, TargetTest, TargetCheckArtifacts)
	}
	return text, nil
}

// lockArgs refreshes the Cloudcoil entry of uv.lock: to exactly pin when given (the
// published version the generator repository requires), else to the newest release the
// project's compatible range allows.
func lockArgs(pin string) []string {
	pkg := CloudcoilPackage
	if pin != "" {
		pkg += "==" + pin
	}
	return []string{"uv", "lock", "--upgrade-package", pkg}
}

// generate refreshes the lockfile, installs the locked environment and generates the models
// as the template's gen-models target does: the generated packages removed, the
// generator, then make fix-lint. The result's /repo is the generated repository, in a container
// with make for the repository's own targets.
func (e Env) Generate(repo *dagger.Directory, cloudcoilPin string, generator *dagger.Directory) (*dagger.Container, error) {
	ctr, err := e.PythonContainer(repo)
	if err != nil {
		return nil, err
	}
	if ctr, err = e.WithMake(ctr); err != nil {
		return nil, err
	}
	ctr = ctr.WithExec(lockArgs(cloudcoilPin)).WithExec(syncArgs)
	for _, step := range genModels {
		if generator != nil && slices.Equal(step, generateArgs) {
			ctr, step = ctr.WithDirectory(GeneratorDir, generator), checkoutGenerateArgs
		}
		ctr = ctr.WithExec(step)
	}
	return ctr, nil
}

// RunChecks runs the generation (by syncing generated) and then every check the
// repository's Makefile defines (ChecksFor) concurrently, one summary row each, named with
// prefix ("cert-manager: lint"). A failed generation skips the checks, which would only
// repeat its error; a Makefile without a target fails the checks with the error that
// names it.
func RunChecks(ctx context.Context, generated *dagger.Container, prefix string) []jobs.JobResult {
	start := time.Now()
	_, err := generated.Sync(ctx)
	rows := []jobs.JobResult{jobs.Result(prefix+"generate", time.Since(start), err)}
	if err != nil {
		for _, c := range DefaultChecks() {
			rows = append(rows, jobs.JobResult{Name: prefix + c.Name, Status: jobs.Skipped, Reason: "generation failed"})
		}
		return rows
	}
	return append(rows, runTargets(ctx, generated, prefix, "the checks of a generated repository")...)
}

// runTargets reads the Makefile of ctr's /repo and runs its checks concurrently.
func runTargets(ctx context.Context, ctr *dagger.Container, prefix, command string) []jobs.JobResult {
	makefile, err := readMakefile(ctx, ctr)
	var checks []Check
	if err == nil {
		checks, err = ChecksFor(makefile, command)
	}
	if err != nil {
		rows := make([]jobs.JobResult, len(DefaultChecks()))
		for i, c := range DefaultChecks() {
			rows[i] = jobs.Result(prefix+c.Name, 0, err)
		}
		return rows
	}
	return RunEach(ctx, ctr, prefix, checks)
}

// RunEach runs checks concurrently on ctr, one row each; a check a cancel kept from
// starting is a failed row.
func RunEach(ctx context.Context, ctr *dagger.Container, prefix string, checks []Check) []jobs.JobResult {
	table := jobs.NewTable(ctx)
	for _, c := range checks {
		table.Go(prefix+c.Name, c.On(ctr))
	}
	rows, _ := table.Wait() // the cancel is in the rows
	return rows
}

// on is the check as a job on ctr: its commands, in order.
func (c Check) On(ctr *dagger.Container) func(context.Context) error {
	return func(ctx context.Context) error {
		run := ctr
		for _, args := range c.Commands {
			run = run.WithExec(args)
		}
		_, err := run.Sync(ctx)
		return err
	}
}
