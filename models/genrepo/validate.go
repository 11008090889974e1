package genrepo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"dagger.io/dagger"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/models"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/upstreams"
)

// ValidateOptions say which integrations a validation checks.
type ValidateOptions struct {
	// Changed are the paths the pull request changes, as `git diff --name-only
	// base...HEAD` prints them, for wrappers that compute them.
	Changed []string
	// Base is the ref the pull request merges into, as git names it (BaseRefs: origin/main
	// too); the changed paths are then the source's own history's, from the merge base to
	// HEAD (the source must hold .git with that history). Ignored when Changed is given.
	Base string
	// Name validates this one integration alone, whatever changed: one job of the
	// wrapper's matrix, so a large integration's generation does not compete for memory
	// with the others.
	Name string
}

// Validation is the outcome of ValidateModels.
type Validation struct {
	// Integrations are the ones checked; Everything says a shared path changed.
	Integrations []string
	Everything   bool
	// Named says the integration was given with --name.
	Named bool
	// CheckoutGenerator says the change touches the generator's code (cloudcoil/codegen/),
	// so the models are generated with the checkout's generator, not the published one.
	CheckoutGenerator bool
	Summary           jobs.Summary
}

// Text renders the selection and the summary table.
func (v Validation) Text() string {
	why := "changed integrations"
	switch {
	case v.Everything:
		why = "a shared template, requirement or the Cloudcoil requirement changed: every integration"
	case v.Named:
		why = "named with --name"
	}
	if len(v.Integrations) == 0 {
		return "No integration changed; nothing to validate.\n"
	}
	with := ""
	if v.CheckoutGenerator {
		with = ", generated with the checkout's generator, which the change touches"
	}
	return fmt.Sprintf("Validated %s (%s%s).\n\n%s", strings.Join(v.Integrations, ", "), why, with, v.Summary.Table())
}

// ValidateModels is the pull request check of the Cloudcoil repository: it selects the
// integrations the change requires (models.ChangedIntegrationsWithUpstreams; all of them
// when neither Changed nor Base is given) and, for each concurrently, generates its
// repository from the published Cloudcoil version (Repo), runs lint, mypy and the model
// tests, builds the wheel and sdist and runs the artifact checks. The graph holds no
// secret: it needs none, and a pull request's code must never see release credentials.
// The error, when any job failed, carries the summary table.
func ValidateModels(ctx context.Context, e modelenv.Env, source *dagger.Directory, opts ValidateOptions) (Validation, error) {
	v, err := SelectIntegrations(ctx, source, opts)
	if err != nil {
		return v, err
	}
	rows := make([][]jobs.JobResult, len(v.Integrations))
	err = fanout.Each(ctx, 0, len(v.Integrations), func(ctx context.Context, i int) error {
		rows[i] = validateOne(ctx, e, source, v.Integrations[i], v.CheckoutGenerator)
		return nil // a failed job is a row of the summary
	})
	if err != nil {
		return v, err // cancelled: an integration did not run
	}
	for _, r := range rows {
		v.Summary.Jobs = append(v.Summary.Jobs, r...)
	}
	if err := v.Summary.Err(); err != nil {
		return v, err
	}
	return v, nil
}

// ListJSON is the selection as a JSON array of names, for a workflow matrix
// (fromJSON(...)); an empty selection is [] so the wrapper can skip the matrix.
func (v Validation) ListJSON() string {
	names := v.Integrations
	if names == nil {
		names = []string{}
	}
	b, _ := json.Marshal(names) // strings always marshal
	return string(b)
}

// SelectIntegrations decides which integrations a validation checks, running nothing:
// opts.Name alone when given (it must be one of models/upstreams.json's), else those the
// change requires (models.ChangedIntegrationsWithUpstreams), else all of them.
func SelectIntegrations(ctx context.Context, source *dagger.Directory, opts ValidateOptions) (Validation, error) {
	// Cloudcoil before Shipyard has no models/upstreams.json: its integrations are the
	// folders under models/ with a cookiecutter.yaml, as its gen-all-repos target says.
	hasUpstreams, err := source.Exists(ctx, upstreams.FilePath)
	if err != nil {
		return Validation{}, fmt.Errorf("looking for %s: %w", upstreams.FilePath, err)
	}
	var all []string
	if hasUpstreams {
		file, err := ReadUpstreams(ctx, source)
		if err != nil {
			return Validation{}, err
		}
		all = file.Names()
		if err := unlisted(ctx, source, all); err != nil {
			return Validation{}, err
		}
	} else if all, err = integrations(ctx, source); err != nil {
		return Validation{}, fmt.Errorf("listing models/: %w", err)
	}
	var v Validation
	// The changed paths, when known, also say whether the generator itself changed; a
	// matrix job gives --name with --base for that alone.
	paths, old := opts.Changed, []byte(nil)
	if len(paths) == 0 && opts.Base != "" {
		if paths, old, err = changedSince(ctx, source, opts.Base); err != nil {
			return Validation{}, err
		}
	}
	v.CheckoutGenerator = models.GeneratorChanged(paths)
	switch {
	case opts.Name != "":
		if !slices.Contains(all, opts.Name) {
			return Validation{}, fmt.Errorf("validate-models --name %s: %s has no integration %q (known: %s)", opts.Name, upstreams.FilePath, opts.Name, strings.Join(all, ", "))
		}
		v.Integrations, v.Named = []string{opts.Name}, true
	case len(opts.Changed) > 0:
		v.Integrations, v.Everything = models.ChangedIntegrations(opts.Changed, all)
	case opts.Base != "":
		if !hasUpstreams {
			// The adoption pull request, or a repository that never adopted the file: the
			// changed paths alone say what changed.
			v.Integrations, v.Everything = models.ChangedIntegrations(paths, all)
			break
		}
		current, err := source.File(upstreams.FilePath).Contents(ctx)
		if err != nil {
			return Validation{}, fmt.Errorf("%s: %w", upstreams.FilePath, err)
		}
		v.Integrations, v.Everything, err = models.ChangedIntegrationsWithUpstreams(paths, all, old, []byte(current))
		if err != nil {
			return Validation{}, err
		}
	default:
		v.Integrations, v.Everything = all, true
	}
	return v, nil
}

// unlisted names the integration folders (a cookiecutter.yaml under models/) that
// models/upstreams.json does not list: nothing would update or validate them, while
// update-repos, which renders every folder, would publish them.
func unlisted(ctx context.Context, source *dagger.Directory, listed []string) error {
	folders, err := integrations(ctx, source)
	if err != nil {
		return fmt.Errorf("listing models/: %w", err)
	}
	var missing []string
	for _, f := range folders {
		if !slices.Contains(listed, f) {
			missing = append(missing, upstreams.CookiecutterPath(f))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: no entry in %s, so model-versions would never update it and validate-models never check it; add its entry (propose-upstreams proposes one) or remove the folder",
			strings.Join(missing, ", "), upstreams.FilePath)
	}
	return nil
}

// validateOne renders, generates, checks and builds one integration: one summary row per
// step, the artifact checks beside the other checks once generation succeeded.
func validateOne(ctx context.Context, e modelenv.Env, source *dagger.Directory, name string, checkoutGenerator bool) []jobs.JobResult {
	prefix := name + ": "
	start := time.Now()
	var generator *dagger.Directory
	if checkoutGenerator {
		generator = modelenv.CheckoutGenerator(source)
	}
	gen, err := genRepo(ctx, e, source, name, generator)
	if err != nil {
		rows := []jobs.JobResult{jobs.Result(prefix+"generate", time.Since(start), err)}
		for _, c := range append(modelenv.DefaultChecks(), modelenv.Check{Name: "artifacts"}) {
			rows = append(rows, jobs.JobResult{Name: prefix + c.Name, Status: jobs.Skipped, Reason: "generation failed"})
		}
		return rows
	}
	rows := modelenv.RunChecks(ctx, gen, prefix)
	if rows[0].Status != jobs.Passed {
		return append(rows, jobs.JobResult{Name: prefix + "artifacts", Status: jobs.Skipped, Reason: "generation failed"})
	}
	start = time.Now()
	report, err := e.CheckArtifacts(ctx, gen.Directory("/repo"))
	if err == nil {
		err = report.Err()
	}
	return append(rows, jobs.Result(prefix+"artifacts", time.Since(start), err))
}

// changedSince lists the paths changed from the merge base of base and HEAD to HEAD in
// the source's own Git history (three-dot semantics, as a pull request's diff), and the
// upstreams file at the merge base (nil when it did not exist there). base is read as git
// reads it where Dagger alone would not (resolveBase): origin/main too.
func changedSince(ctx context.Context, source *dagger.Directory, base string) ([]string, []byte, error) {
	repo := source.AsGit()
	name, err := resolveBase(ctx, repo, base)
	if err != nil {
		return nil, nil, err
	}
	head := repo.Head()
	mergeBase := head.CommonAncestor(repo.Ref(name))
	before := mergeBase.Tree(dagger.GitRefTreeOpts{DiscardGitDir: true})
	changes := head.Tree(dagger.GitRefTreeOpts{DiscardGitDir: true}).Changes(before)
	var paths []string
	for _, list := range []func(context.Context) ([]string, error){changes.AddedPaths, changes.ModifiedPaths, changes.RemovedPaths} {
		ps, err := list(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("changes since %s: %w (does --source hold .git with the history of %s?)", base, err, base)
		}
		paths = append(paths, ps...)
	}
	exists, err := before.Exists(ctx, upstreams.FilePath)
	if err != nil {
		return nil, nil, fmt.Errorf("%s at the merge base with %s: %w", upstreams.FilePath, base, err)
	}
	if !exists {
		return paths, nil, nil
	}
	old, err := before.File(upstreams.FilePath).Contents(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("%s at the merge base with %s: %w", upstreams.FilePath, base, err)
	}
	return paths, []byte(old), nil
}
