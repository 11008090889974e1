package doctor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"sync"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/pyproject"
	"dagger/shipyard/internal/reponame"
)

// denied turns GitHub's 403/404 into a fact; other errors (after the client's retries)
// end the run, since no rule decides on data it does not have.
func denied(err error) (bool, error) {
	if err == nil {
		return false, nil
	}
	if github.NoAccess(err) {
		return true, nil
	}
	return false, err
}

// readFile reads a file of the default branch.
func readFile(ctx context.Context, gh github.API, owner, name, path string) (File, error) {
	data, found, err := gh.FileAt(ctx, owner, name, path, "")
	f := File{Path: path, Found: found, Content: string(data)}
	f.Denied, err = denied(err)
	return f, err
}

// firstFile reads the first of paths that exists (the last one's facts when none does).
func firstFile(ctx context.Context, gh github.API, owner, name string, paths ...string) (File, error) {
	var f File
	for _, p := range paths {
		var err error
		if f, err = readFile(ctx, gh, owner, name, p); err != nil || f.Found || f.Denied {
			return f, err
		}
	}
	return f, nil
}

func split(repo string) (string, string, error) {
	n, err := reponame.Parse(repo)
	if err != nil {
		return "", "", fmt.Errorf("--repo: %w: want owner/name", err)
	}
	return n.Owner, n.Repo, nil
}

// GatherTesk reads tesk-core's settings: the tag rulesets (each in full), the
// environments with release's deployment policies and both environments' secret names,
// the repository's and the shared organisation secrets' names, the required checks of dev
// and main, and the files of the default branch. About 17 requests, run concurrently by
// group.
func GatherTesk(ctx context.Context, gh github.API, repo string) (TeskFacts, error) {
	owner, name, err := split(repo)
	if err != nil {
		return TeskFacts{}, err
	}
	f := TeskFacts{Repo: repo, Environments: map[string]EnvFacts{}, Checks: map[string]BranchChecks{}}
	c := fanout.New(ctx, 0)
	c.Go(func(ctx context.Context) error {
		rs, err := gh.Rulesets(ctx, owner, name, "tag")
		f.TagRulesets = rs
		f.TagRulesetsDenied, err = denied(err)
		return err
	})
	c.Go(func(ctx context.Context) error { return gatherEnvironments(ctx, gh, owner, name, &f) })
	c.Go(func(ctx context.Context) error {
		names, err := gh.SecretNames(ctx, owner, name)
		f.RepoSecrets = names
		f.RepoSecretsDenied, err = denied(err)
		return err
	})
	c.Go(func(ctx context.Context) error {
		names, err := gh.OrgSecretNames(ctx, owner, name)
		f.OrgSecrets = names
		f.OrgSecretsDenied, err = denied(err)
		return err
	})
	var mu sync.Mutex
	for _, b := range ProtectedBranches() {
		c.Go(func(ctx context.Context) error {
			var bc BranchChecks
			var err error
			bc.Rulesets, err = gh.BranchStatusChecks(ctx, owner, name, b)
			if bc.RulesetsDenied, err = denied(err); err != nil {
				return err
			}
			bc.Protection, err = gh.ProtectionStatusChecks(ctx, owner, name, b)
			if errors.Is(err, github.ErrNotProtected) {
				bc.NotProtected, err = true, nil
			}
			if bc.ProtectionDenied, err = denied(err); err != nil {
				return err
			}
			mu.Lock()
			f.Checks[b] = bc
			mu.Unlock()
			return nil
		})
	}
	c.Go(func(ctx context.Context) error {
		var err error
		f.Dependabot, err = firstFile(ctx, gh, owner, name, ".github/dependabot.yml", ".github/dependabot.yaml")
		return err
	})
	c.Go(func(ctx context.Context) error {
		var err error
		// GitHub reads the first of these that exists.
		f.Codeowners, err = firstFile(ctx, gh, owner, name, ".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")
		return err
	})
	c.Go(func(ctx context.Context) error { return gatherWorkflows(ctx, gh, owner, name, &f) })
	return f, c.Wait()
}

func gatherEnvironments(ctx context.Context, gh github.API, owner, name string, f *TeskFacts) error {
	envs, err := gh.Environments(ctx, owner, name)
	no, err := denied(err)
	if err != nil || no {
		return err
	}
	f.EnvironmentsRead = true
	for _, e := range envs {
		if e.Name != ReleaseEnv && e.Name != DevImagesEnv {
			continue
		}
		ef := EnvFacts{Found: true, Env: e}
		if e.Policy == github.PolicyCustom {
			ef.Policies, err = gh.DeploymentPolicies(ctx, owner, name, e.Name)
			if ef.PoliciesDenied, err = denied(err); err != nil {
				return err
			}
		}
		ef.SecretNames, err = gh.EnvironmentSecretNames(ctx, owner, name, e.Name)
		if ef.SecretNamesDenied, err = denied(err); err != nil {
			return err
		}
		f.Environments[e.Name] = ef
	}
	return nil
}

func gatherWorkflows(ctx context.Context, gh github.API, owner, name string, f *TeskFacts) error {
	const dir = ".github/workflows"
	entries, found, err := gh.DirAt(ctx, owner, name, dir, "")
	if f.WorkflowsDenied, err = denied(err); err != nil || f.WorkflowsDenied || !found {
		return err
	}
	sort.Strings(entries)
	for _, e := range entries {
		if !isWorkflowFile(e) {
			continue
		}
		file, err := readFile(ctx, gh, owner, name, dir+"/"+e)
		if err != nil {
			return err
		}
		f.Workflows = append(f.Workflows, file)
	}
	return nil
}

// GatherModel reads a Cloudcoil model repository's settings: its variables, where
// CI_GITHUB_TOKEN could come from (repository, organisation and environment secret
// names), pypi_publish.yml and pyproject.toml's project name.
func GatherModel(ctx context.Context, gh github.API, repo string, pypi PyPISource) (ModelFacts, error) {
	owner, name, err := split(repo)
	if err != nil {
		return ModelFacts{}, err
	}
	f := ModelFacts{Repo: repo, SecretSources: map[string]bool{}}
	c := fanout.New(ctx, 0)
	c.Go(func(ctx context.Context) error {
		vars, err := gh.Variables(ctx, owner, name)
		f.Variables = vars
		f.VariablesDenied, err = denied(err)
		return err
	})
	gatherTokenSources(ctx, gh, owner, name, &f, c)
	c.Go(func(ctx context.Context) error {
		var err error
		f.Publish, err = readFile(ctx, gh, owner, name, PublishWorkflow)
		return err
	})
	c.Go(func(ctx context.Context) error {
		py, err := readFile(ctx, gh, owner, name, "pyproject.toml")
		if err != nil || !py.Found {
			return err
		}
		// The name only completes the PyPI link; a file that does not parse leaves it out.
		if doc, err := pyproject.Parse("pyproject.toml", []byte(py.Content)); err == nil {
			f.Distribution, _, _ = doc.String("project", "name")
		}
		return nil
	})
	err = c.Wait()
	slices.Sort(f.SecretsDenied)
	if err == nil && f.Distribution != "" {
		// PyPI down or odd makes the publisher check a manual one, never stops the others.
		if f.PyPI, err = GatherPyPIUpload(ctx, pypi.Client, pypi.URL, f.Distribution); err != nil {
			f.PyPI = PyPIUpload{Read: true, Error: err.Error()}
			err = nil
		}
	}
	return f, err
}

// PyPISource is where doctor reads a model distribution's uploads: PyPI's base URL and
// the HTTP client (nil: the default).
type PyPISource struct {
	URL    string
	Client *http.Client
}

// GatherGenerator reads where CI_GITHUB_TOKEN could come from in Cloudcoil's generator
// repository: repository, organisation and environment secret names.
func GatherGenerator(ctx context.Context, gh github.API, repo string) (ModelFacts, error) {
	owner, name, err := split(repo)
	if err != nil {
		return ModelFacts{}, err
	}
	f := ModelFacts{Repo: repo, SecretSources: map[string]bool{}}
	c := fanout.New(ctx, 0)
	gatherTokenSources(ctx, gh, owner, name, &f, c)
	err = c.Wait()
	slices.Sort(f.SecretsDenied)
	return f, err
}

// gatherTokenSources starts, on c, the reads of every place CI_GITHUB_TOKEN could come
// from, recording into f.SecretSources and f.SecretsDenied.
func gatherTokenSources(ctx context.Context, gh github.API, owner, name string, f *ModelFacts, c *fanout.Group) {
	var mu sync.Mutex
	source := func(where string, names []string, err error) error {
		no, err := denied(err)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if no {
			f.SecretsDenied = append(f.SecretsDenied, where)
			return nil
		}
		f.SecretSources[where] = slices.Contains(names, CITokenSecret)
		return nil
	}
	c.Go(func(ctx context.Context) error {
		names, err := gh.SecretNames(ctx, owner, name)
		return source(sourceRepository, names, err)
	})
	c.Go(func(ctx context.Context) error {
		names, err := gh.OrgSecretNames(ctx, owner, name)
		return source(sourceOrg, names, err)
	})
	c.Go(func(ctx context.Context) error {
		envs, err := gh.Environments(ctx, owner, name)
		if no, err := denied(err); err != nil || no {
			if no {
				mu.Lock()
				f.SecretsDenied = append(f.SecretsDenied, "the environments")
				mu.Unlock()
			}
			return err
		}
		for _, e := range envs {
			names, err := gh.EnvironmentSecretNames(ctx, owner, name, e.Name)
			if err := source("the environment "+e.Name, names, err); err != nil {
				return err
			}
		}
		return nil
	})
}
