package main

import (
	"context"
	"errors"
	"fmt"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/dagger"
	"dagger/shipyard/internal/githubcmd"
	"dagger/shipyard/models/genrepo"
	"dagger/shipyard/models/modelci"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/modelrelease"
	"dagger/shipyard/models/updaterepos"
)

// The Cloudcoil model package functions: glue over models/modelrelease, where the graphs
// and the rules live.

// modelEnv connects the model graphs to the session, at this call's trust level, and
// hands them the source. Their flows log each step on the call's stderr, as the release
// does.
func (m *Shipyard) modelEnv(ctx context.Context) (modelenv.Env, *sdk.Directory, error) {
	level, err := m.level(ctx)
	if err != nil {
		return modelenv.Env{}, nil, err
	}
	c, src, err := m.sessionSource(ctx)
	if err != nil {
		return modelenv.Env{}, nil, err
	}
	env := modelenv.NewEnv(c)
	env.Trust, env.Log = level, logToStderr
	if env.Pins, err = m.treePins(ctx, src); err != nil {
		return modelenv.Env{}, nil, err
	}
	return env, src, nil
}

// modelEnvOnGitHub is modelEnv with the GitHub client, for the flows that read and write
// the model repositories and their releases.
func (m *Shipyard) modelEnvOnGitHub(ctx context.Context) (modelenv.Env, *sdk.Directory, *githubcmd.Client, error) {
	env, src, err := m.modelEnv(ctx)
	if err != nil {
		return modelenv.Env{}, nil, nil, err
	}
	gh, err := m.githubClient(ctx)
	if err != nil {
		return modelenv.Env{}, nil, nil, err
	}
	return env, src, gh, nil
}

// GenRepo renders an integration's generated repository from the Cloudcoil repository
// (--source) by running its own make gen-repo-<name>: cookiecutter with
// models/<name>/cookiecutter.yaml, then the template's hook, which runs uv sync and uv add
// cloudcoil -U and appends the integration's overlays. The models are then generated with
// the published Cloudcoil version (models/upstreams.json's when the repository has it).
// Returns the repository; export it, or run check-artifacts on it. With --template-patch
// it renders nothing and returns a directory holding cloudcoil-template.patch, the change
// Shipyard asks of the template (what model-template-patch returns).
// +cache="session"
// +cacheReason="generates from the Cloudcoil version published on PyPI"
func (m *Shipyard) GenRepo(
	ctx context.Context,
	// The integration, a folder under models/ (e.g. kubernetes).
	// +optional
	name string,
	// Return only cloudcoil-template.patch, to apply with git apply -p1 at the root of the
	// Cloudcoil repository, instead of a generated repository.
	// +optional
	templatePatch bool,
) (*dagger.Directory, error) {
	return call(m, func(m *Shipyard) (_ *dagger.Directory, err error) {
		switch {
		case templatePatch && name != "":
			return nil, fmt.Errorf("--template-patch returns the template patch, not a repository: drop --name %s, or drop --template-patch", name)
		case templatePatch:
			return m.ModelTemplatePatch(ctx)
		case name == "":
			return nil, errors.New("give --name <integration> (a folder under models/ with a cookiecutter.yaml), or --template-patch for the template patch")
		}
		env, src, err := m.modelEnv(ctx)
		if err != nil {
			return nil, err
		}
		repo, err := genrepo.Repo(ctx, env, src, name)
		if err != nil {
			return nil, err
		}
		return m.fromSDKDirectory(ctx, repo)
	})
}

// ValidateModels is the pull request check of the Cloudcoil repository: for each changed
// integration (every one when the shared template, the generation requirements or the
// Cloudcoil requirement changed), or the one given with --name, it generates the
// repository from the published Cloudcoil version, runs the repository's make lint and
// make test, builds the wheel and sdist and checks them. Returns the summary table; fails
// with it when a job failed. With --list it runs nothing and prints the integrations it
// would validate as a JSON array, for a workflow matrix that validates each in its own
// job. It uses no credential, whatever the module was given.
// +cache="session"
// +cacheReason="generates from the Cloudcoil version published on PyPI"
func (m *Shipyard) ValidateModels(
	ctx context.Context,
	// The ref the pull request merges into, as git names it (origin/main, a branch, a tag
	// or a commit SHA); the changed paths are then read from the source's Git history since
	// the merge base (the source must include .git).
	// +optional
	base string,
	// The changed paths, when the caller computed them (git diff --name-only base...HEAD);
	// they take precedence over --base. Without either, every integration is checked.
	// +optional
	changed []string,
	// Validate this integration alone (a folder under models/), whatever changed: one job
	// of a matrix. With --base or --changed, a change to the generator (cloudcoil/codegen/)
	// still generates it with the checkout's generator.
	// +optional
	name string,
	// Print the integrations to validate as a JSON array (e.g. ["istio","keda"]) and run
	// nothing.
	// +optional
	list bool,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		env, src, err := m.modelEnv(ctx)
		if err != nil {
			return "", err
		}
		opts := genrepo.ValidateOptions{Base: base, Changed: changed, Name: name}
		if list {
			v, err := genrepo.SelectIntegrations(ctx, src, opts)
			if err != nil {
				return "", err
			}
			return v.ListJSON() + "\n", nil
		}
		v, err := genrepo.ValidateModels(ctx, env, src, opts)
		if err != nil {
			return "", err
		}
		return v.Text(), nil
	})
}

// CheckArtifacts builds a generated model repository (--source) as it is and checks the
// wheel and sdist against the checkout: package files identical in set and bytes, names
// and versions equal to pyproject.toml's, no empty resource lookup, no missing or empty
// model module. Returns the report; fails with every problem. On a tree that is not a
// model repository (tesk-core's, with Shipyard installed as a toolchain) it skips, saying
// why.
// +check
// +cacheReason="the checkout only"
func (m *Shipyard) CheckArtifacts(ctx context.Context) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		env, src, err := m.modelEnv(ctx)
		if err != nil {
			return "", err
		}
		if skip, err := m.notModelRepository(ctx, src); skip != "" || err != nil {
			return skip, err
		}
		report, err := env.CheckArtifacts(ctx, src)
		if err != nil {
			return "", err
		}
		if err := report.Err(); err != nil {
			return "", err
		}
		return report.Text(), nil
	})
}

// ModelRelease is a model repository's Update Versions run, on its main checkout
// (--source) and GitHub repository (--repo, e.g. cloudcoil/models-kubernetes): select the
// upstream, generate, lint, type check and test; compare the fingerprint with the last
// release's; allocate <upstream>.<packaging> from GitHub releases, tags and PyPI, reusing
// a draft; build and check the artifacts and the Cloudcoil dependency; push a regular
// commit to release-<major>.<minor> and create or update the draft pinned to it. Drafts
// are the default; the draft is published with --auto-publish (the AUTO_PUBLISH_MODELS
// variable) or --publish with --dry-run=false, unless main advanced during the run. A dry
// run (the default) builds and validates and writes nothing. Returns the plan and what
// was done.
// +cache="never"
// +trust="publishing(github-token)"
// +cacheReason="reads and writes GitHub releases, branches and tags"
func (m *Shipyard) ModelRelease(
	ctx context.Context,
	// The upstream version to release, X.Y.Z, one of the repository's configured versions;
	// default: the newest configured one (what main generates).
	// +optional
	upstream string,
	// Publish this run's draft (needs --dry-run=false).
	// +optional
	publish bool,
	// Build and validate only: push nothing, release nothing.
	// +default=true
	dryRun bool,
	// Publish after validation: the repository variable AUTO_PUBLISH_MODELS=true.
	// +optional
	autoPublish bool,
	// The main commit the source is a checkout of (github.sha); default: main's head when
	// the run starts.
	// +optional
	commit string,
	// PyPI's base URL, for the versions already taken.
	// +default="https://pypi.org"
	pypiUrl string,
) (string, error) {
	return call(m.rehearsing(dryRun), func(m *Shipyard) (_ string, err error) {
		env, src, gh, err := m.modelEnvOnGitHub(ctx)
		if err != nil {
			return "", err
		}
		res, err := modelrelease.Release(ctx, env, gh, src, modelrelease.ReleaseOptions{
			Flow: m.fn, Repo: m.Repo, Upstream: upstream, Commit: commit,
			DryRun: dryRun, Publish: publish, AutoPublish: autoPublish, PyPIURL: pypiUrl,
		})
		if err != nil {
			return "", err
		}
		return res.Text(), nil
	})
}

// CheckExtras is the rule "add a core installation extra only after the model
// distribution exists on PyPI", on the Cloudcoil repository (--source): every requirement
// of pyproject.toml's [project.optional-dependencies] that names a model distribution
// (cloudcoil.models.*) must have a version on PyPI, so the core lockfile never requires
// an unpublished dependency. Returns the extras checked; fails naming each extra, its
// line and the fix.
// +cache="never"
// +cacheReason="reads PyPI, whose projects appear after the first upload"
func (m *Shipyard) CheckExtras(
	ctx context.Context,
	// PyPI's base URL.
	// +default="https://pypi.org"
	pypiUrl string,
) (string, error) {
	data, err := m.Source.File("pyproject.toml").Contents(ctx)
	if err != nil {
		return "", fmt.Errorf("pyproject.toml: %w", err)
	}
	extras, problems, err := modelci.CoreExtrasOnPyPI(ctx, nil, pypiUrl, []byte(data))
	if err != nil {
		return "", err
	}
	return modelci.ExtrasText(extras, problems)
}

// ModelLines lists a model repository's release lines (--source, its main checkout): one
// per upstream version of the model_version matrix the Cloudcoil template renders from
// versions in cookiecutter.yaml (into Shipyard's release workflow, or the template's own
// Update Versions workflow), oldest first, each with its release-<major>.<minor> branch;
// newest is the line main carries. Returns a JSON array for a GitHub Actions matrix
// (include: ${{ fromJSON(…) }}), so the release workflow runs model-release once per line.
// +cacheReason="the checkout's release workflow only"
func (m *Shipyard) ModelLines(ctx context.Context) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		_, src, err := m.modelEnv(ctx)
		if err != nil {
			return "", err
		}
		cfg, err := modelenv.ReadLineConfig(ctx, src)
		if err != nil {
			return "", err
		}
		lines, err := modelenv.ReleaseLines(cfg)
		if err != nil {
			return "", err
		}
		return modelenv.LinesJSON(lines), nil
	})
}

// PublishCheck is what the PyPI publisher runs on a release tag's checkout (--source)
// before uploading: the tag equals the committed package version and its release record,
// the locked dependencies install, and the wheel and sdist pass the artifact and
// Cloudcoil dependency checks. It never allocates, so re-running a failed upload
// publishes the same version. Returns dist/ (the checked wheel and sdist, to upload as
// they are) and publish-check.txt (the report).
// +cache="never"
// +trust="tree-keyed"
// +cacheReason="the gate before an upload: reads the tag and installs from PyPI"
func (m *Shipyard) PublishCheck(
	ctx context.Context,
	// The release tag, <upstream>.<packaging> (e.g. 1.31.5.2).
	tag string,
) (*dagger.Directory, error) {
	return call(m, func(m *Shipyard) (_ *dagger.Directory, err error) {
		env, src, err := m.modelEnv(ctx)
		if err != nil {
			return nil, err
		}
		report, err := modelrelease.PublishCheck(ctx, env, m.fn, src, tag)
		if err != nil {
			return nil, err
		}
		out := env.Client.Directory().
			WithDirectory("dist", report.Dist).
			WithNewFile("publish-check.txt", report.Text())
		return m.fromSDKDirectory(ctx, out)
	})
}

// ModelCi is the repository CI of a model repository, as the template's ci.yml runs it:
// on the checkout (--source) as it is, with no regeneration, it installs the locked
// environment with all extras and runs the repository's make targets concurrently: lint
// (ruff and mypy in the template), typecheck when the Makefile has one, and test on
// every Python version the classifiers or requires-python name, in parallel; uv build
// makes the wheel and sdist, which Shipyard's artifact rules check against the checkout.
// A Makefile without lint or test is an error naming the target and the template's
// recipe. Returns summary.md, results.json, check-artifacts.txt and the coverage.xml and
// junit.xml the tests on the oldest Python wrote (for Codecov); fails with the table when
// a job fails. It uses no credential.
// +cacheReason="the checkout and its lockfile only: uv sync --frozen installs the locked hashes"
func (m *Shipyard) ModelCi(
	ctx context.Context,
	// Python versions to test (e.g. 3.13), each one the repository supports; default: all
	// it supports.
	// +optional
	python []string,
) (*dagger.Directory, error) {
	return call(m, func(m *Shipyard) (_ *dagger.Directory, err error) {
		env, src, err := m.modelEnv(ctx)
		if err != nil {
			return nil, err
		}
		report, err := modelci.RepositoryCI(ctx, env, src, python...)
		if err != nil {
			return nil, err
		}
		dir, err := report.Dir(env.Client)
		if err != nil {
			return nil, err
		}
		return m.fromSDKDirectory(ctx, dir)
	})
}

// ModelIntegrations lists the integrations of the Cloudcoil repository (--source), every
// folder under models/ as its Makefile's publish-all-repos takes them, as a JSON array
// (e.g. ["cert-manager","keda"]): the matrix of update-repos' wrapper, one job per
// integration.
// +cacheReason="the source's models/upstreams.json only"
func (m *Shipyard) ModelIntegrations(ctx context.Context) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		_, src, err := m.modelEnv(ctx)
		if err != nil {
			return "", err
		}
		list, err := updaterepos.Integrations(ctx, src)
		if err != nil {
			return "", err
		}
		return list + "\n", nil
	})
}

// UpdateRepos is the repository update after a source update is merged in Cloudcoil
// (--source, the merged checkout): for each integration (--name, repeatable; default:
// every folder under models/; those models/upstreams.json leaves out are named in the
// output), concurrently and each on its own, it renders and generates the repository
// as gen-repo does and pushes it to the main branch of <owner>/models-<name> through the
// GitHub API (tree, commit, ref update) as a regular fast-forward commit on main's head,
// never a force push. A main that moved meanwhile (diverged) is an error naming it; an
// unchanged tree pushes nothing; one integration's failure leaves the others pushed. A
// source older than the repository's last generation (a re-run of an older run) is
// refused, naming both commits. A model repository that does not exist is created as
// publish-repo-% creates it (public, a README, its description and topics) when the token
// may, and otherwise the error names the gh command. Give --repo the Cloudcoil repository and
// --github-token CI_GITHUB_TOKEN, so the push starts the repository's own workflows
// (GitHub starts none for the default GITHUB_TOKEN's pushes). Returns one line per
// repository; fails when any update failed.
// +cache="never"
// +trust="publishing(github-token)"
// +cacheReason="reads and writes the model repositories' main branches on GitHub"
func (m *Shipyard) UpdateRepos(
	ctx context.Context,
	// The integrations to update (folders under models/); default: every one.
	// +optional
	name []string,
	// The owner of the model repositories.
	// +default="cloudcoil"
	owner string,
	// The Cloudcoil commit the source is a checkout of (github.sha), a full SHA; required
	// unless --dry-run. It must be the head of main of --repo (the Cloudcoil repository)
	// or descend from the commit the model repository was last generated from, so a
	// re-run of an older run never reverts a repository; the commit message records it.
	// +optional
	commit string,
	// Generate and read main only: write nothing.
	// +optional
	dryRun bool,
) (string, error) {
	return call(m.rehearsing(dryRun), func(m *Shipyard) (_ string, err error) {
		env, src, gh, err := m.modelEnvOnGitHub(ctx)
		if err != nil {
			return "", err
		}
		updates, err := updaterepos.Update(ctx, env, gh, src, updaterepos.UpdateOptions{
			Flow: m.fn, Names: name, Owner: owner, SourceRepo: m.Repo, SourceCommit: commit, DryRun: dryRun,
		})
		if err != nil {
			return "", fmt.Errorf("%w\n\n%s", err, updates.Text())
		}
		return updates.Text(), nil
	})
}

// ModelTemplatePatch is the change Shipyard asks of the model template of the Cloudcoil
// repository (--source), as a patch of the template as it is today, to apply at the
// repository's root with git apply -p1: Shipyard's release, CI and publish workflows in the
// template (wrapped in {% raw %}, so update-repos keeps them), update_releases.yml and
// test_pypi_publish.yml removed, the cloudcoil_models entry point declared and the
// requirement on Cloudcoil bounded to its minor. gen-repo renders the patched template the
// same way as the original. Returns a directory holding cloudcoil-template.patch (empty
// when the template holds every change already); export it.
// +cacheReason="the checkout's template and models/upstreams.json only"
func (m *Shipyard) ModelTemplatePatch(ctx context.Context) (*dagger.Directory, error) {
	c, src, err := m.sessionSource(ctx)
	if err != nil {
		return nil, err
	}
	patch, err := genrepo.TemplatePatch(ctx, src)
	if err != nil {
		return nil, err
	}
	return m.fromSDKDirectory(ctx, c.Directory().WithNewFile(genrepo.TemplatePatchFile, patch))
}
