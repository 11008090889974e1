package githubclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	gh "github.com/google/go-github/v84/github"

	"dagger/shipyard/internal/github"
)

// maxSettingsPages bounds a settings list: a repository with more than 3,000 rulesets,
// environments, secrets or variables is not one these checks were written for.
const maxSettingsPages = 30

// pages calls list for page 1, 2, … until the last page or maxSettingsPages pages.
func pages(what string, list func(opts *gh.ListOptions) (*gh.Response, error)) error {
	opts := &gh.ListOptions{PerPage: 100}
	for range maxSettingsPages {
		resp, err := list(opts)
		if err != nil {
			return fmt.Errorf("github: %s: %w", what, err)
		}
		if resp == nil || resp.NextPage == 0 {
			return nil
		}
		opts.Page = resp.NextPage
	}
	return fmt.Errorf("github: %s: more than %d pages", what, maxSettingsPages)
}

// Rulesets returns the repository's rulesets with the given target (branch, tag or push),
// those of its organisation included, each read in full: the list answers without
// conditions, rules or bypass actors.
func (c *Client) Rulesets(ctx context.Context, owner, repo, target string) ([]github.Ruleset, error) {
	var ids []int64
	parents := true
	err := pages("rulesets of "+owner+"/"+repo, func(opts *gh.ListOptions) (*gh.Response, error) {
		list, resp, err := c.gh.Repositories.GetAllRulesets(ctx, seg(owner), seg(repo),
			&gh.RepositoryListRulesetsOptions{IncludesParents: &parents, ListOptions: *opts})
		if err = apiErr(resp, err); err != nil {
			return resp, err
		}
		for _, r := range list {
			if r.Target != nil && string(*r.Target) == target && r.ID != nil {
				ids = append(ids, *r.ID)
			}
		}
		return resp, nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]github.Ruleset, 0, len(ids))
	for _, id := range ids {
		r, resp, err := c.gh.Repositories.GetRuleset(ctx, seg(owner), seg(repo), id, true)
		if err = apiErr(resp, err); err != nil {
			return nil, fmt.Errorf("github: ruleset %d of %s/%s: %w", id, owner, repo, err)
		}
		out = append(out, rulesetOf(r))
	}
	return out, nil
}

func rulesetOf(r *gh.RepositoryRuleset) github.Ruleset {
	rs := github.Ruleset{ID: r.GetID(), Name: r.Name, Enforcement: string(r.Enforcement), BypassKnown: r.BypassActors != nil}
	if r.Target != nil {
		rs.Target = string(*r.Target)
	}
	if r.SourceType != nil {
		rs.SourceType = string(*r.SourceType)
	}
	if r.Conditions != nil && r.Conditions.RefName != nil {
		rs.Include = append([]string(nil), r.Conditions.RefName.Include...)
		rs.Exclude = append([]string(nil), r.Conditions.RefName.Exclude...)
	}
	if r.Rules != nil {
		rs.Rules = ruleTypes(r.Rules)
	}
	for _, a := range r.BypassActors {
		ba := github.BypassActor{ID: a.GetActorID()}
		if a.ActorType != nil {
			ba.Type = string(*a.ActorType)
		}
		if a.BypassMode != nil {
			ba.Mode = string(*a.BypassMode)
		}
		rs.Bypass = append(rs.Bypass, ba)
	}
	return rs
}

// ruleTypes names the rules of a ruleset that matter for refs' lifecycle and checks.
func ruleTypes(r *gh.RepositoryRulesetRules) []string {
	var out []string
	add := func(set bool, name string) {
		if set {
			out = append(out, name)
		}
	}
	add(r.Creation != nil, "creation")
	add(r.Update != nil, "update")
	add(r.Deletion != nil, "deletion")
	add(r.NonFastForward != nil, "non_fast_forward")
	add(r.RequiredSignatures != nil, "required_signatures")
	add(r.RequiredStatusChecks != nil, "required_status_checks")
	add(r.PullRequest != nil, "pull_request")
	return out
}

// BranchStatusChecks returns the status check contexts that active rulesets require on
// a branch, from GET /repos/{owner}/{repo}/rules/branches/{branch} (readable with the
// repository's metadata).
func (c *Client) BranchStatusChecks(ctx context.Context, owner, repo, branch string) ([]string, error) {
	var out []string
	err := pages("rules of branch "+branch+" in "+owner+"/"+repo, func(opts *gh.ListOptions) (*gh.Response, error) {
		rules, resp, err := c.gh.Repositories.GetRulesForBranch(ctx, seg(owner), seg(repo), seg(branch), opts)
		if err = apiErr(resp, err); err != nil {
			return resp, err
		}
		if rules != nil {
			for _, r := range rules.RequiredStatusChecks {
				for _, sc := range r.Parameters.RequiredStatusChecks {
					out = append(out, sc.Context)
				}
			}
		}
		return resp, nil
	})
	return out, err
}

// ProtectionStatusChecks returns the status checks a branch's classic protection requires.
// The error wraps ErrNotProtected when the branch has none; other 403s and 404s (see
// NoAccess) mean the token lacks Administration: read.
func (c *Client) ProtectionStatusChecks(ctx context.Context, owner, repo, branch string) ([]string, error) {
	// go-github escapes the branch itself, and turns "Branch not protected" into its own
	// error, dropping the answer.
	checks, resp, err := c.gh.Repositories.GetRequiredStatusChecks(ctx, seg(owner), seg(repo), branch)
	if errors.Is(err, gh.ErrBranchNotProtected) {
		return nil, fmt.Errorf("github: branch %s of %s/%s: %w (branch not protected)", branch, owner, repo, github.ErrNotProtected)
	}
	err = apiErr(resp, err)
	if github.MessageIs(err, http.StatusNotFound, "Required status checks not enabled") {
		return nil, fmt.Errorf("github: branch %s of %s/%s: %w (%w)", branch, owner, repo, github.ErrNotProtected, err)
	}
	if err != nil {
		return nil, fmt.Errorf("github: required status checks of branch %s in %s/%s: %w", branch, owner, repo, err)
	}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if checks.Checks != nil {
		for _, ch := range *checks.Checks {
			add(ch.Context)
		}
	}
	if checks.Contexts != nil {
		for _, s := range *checks.Contexts {
			add(s)
		}
	}
	return out, nil
}

// Environments returns the repository's environments.
func (c *Client) Environments(ctx context.Context, owner, repo string) ([]github.Environment, error) {
	var out []github.Environment
	err := pages("environments of "+owner+"/"+repo, func(opts *gh.ListOptions) (*gh.Response, error) {
		list, resp, err := c.gh.Repositories.ListEnvironments(ctx, seg(owner), seg(repo), &gh.EnvironmentListOptions{ListOptions: *opts})
		if err = apiErr(resp, err); err != nil {
			return resp, err
		}
		if list != nil {
			for _, e := range list.Environments {
				out = append(out, environmentOf(e))
			}
		}
		return resp, nil
	})
	return out, err
}

func environmentOf(e *gh.Environment) github.Environment {
	env := github.Environment{Name: e.GetName(), Policy: github.PolicyAll}
	if p := e.DeploymentBranchPolicy; p != nil {
		switch {
		case p.GetCustomBranchPolicies():
			env.Policy = github.PolicyCustom
		case p.GetProtectedBranches():
			env.Policy = github.PolicyProtected
		}
	}
	for _, r := range e.ProtectionRules {
		if r.GetType() == "required_reviewers" {
			env.RequiredReviewers += len(r.Reviewers)
		}
	}
	return env
}

// DeploymentPolicies returns the custom deployment branch and tag policies of an environment.
func (c *Client) DeploymentPolicies(ctx context.Context, owner, repo, env string) ([]github.DeploymentPolicy, error) {
	var out []github.DeploymentPolicy
	err := pages("deployment policies of environment "+env+" in "+owner+"/"+repo, func(opts *gh.ListOptions) (*gh.Response, error) {
		list, resp, err := c.gh.Repositories.ListDeploymentBranchPolicies(ctx, seg(owner), seg(repo), seg(env), opts)
		if err = apiErr(resp, err); err != nil {
			return resp, err
		}
		if list != nil {
			for _, p := range list.BranchPolicies {
				// GitHub leaves type out of policies made before tag policies existed.
				t := p.GetType()
				if t == "" {
					t = "branch"
				}
				out = append(out, github.DeploymentPolicy{Name: p.GetName(), Type: t})
			}
		}
		return resp, nil
	})
	return out, err
}

// SecretNames returns the names of the repository's Actions secrets; values never leave
// GitHub.
func (c *Client) SecretNames(ctx context.Context, owner, repo string) ([]string, error) {
	return c.secretNames(ctx, "secrets of "+owner+"/"+repo, "repos/"+seg(owner)+"/"+seg(repo)+"/actions/secrets")
}

// OrgSecretNames returns the names of the organisation secrets shared with the repository.
func (c *Client) OrgSecretNames(ctx context.Context, owner, repo string) ([]string, error) {
	return c.secretNames(ctx, "organisation secrets of "+owner+"/"+repo, "repos/"+seg(owner)+"/"+seg(repo)+"/actions/organization-secrets")
}

// EnvironmentSecretNames returns the names of an environment's secrets, from
// GET /repos/{owner}/{repo}/environments/{env}/secrets (go-github only has the older
// path by repository id, which would cost a request for the id).
func (c *Client) EnvironmentSecretNames(ctx context.Context, owner, repo, env string) ([]string, error) {
	return c.secretNames(ctx, "secrets of environment "+env+" in "+owner+"/"+repo,
		"repos/"+seg(owner)+"/"+seg(repo)+"/environments/"+seg(env)+"/secrets")
}

func (c *Client) secretNames(ctx context.Context, what, path string) ([]string, error) {
	var out []string
	err := pages(what, func(opts *gh.ListOptions) (*gh.Response, error) {
		req, err := c.gh.NewRequest(http.MethodGet, fmt.Sprintf("%s?per_page=%d&page=%d", path, opts.PerPage, max(opts.Page, 1)), nil)
		if err != nil {
			return nil, err
		}
		var list gh.Secrets
		resp, err := c.gh.Do(ctx, req, &list)
		if err = apiErr(resp, err); err != nil {
			return resp, err
		}
		for _, s := range list.Secrets {
			out = append(out, s.Name)
		}
		return resp, nil
	})
	return out, err
}

// Variables returns the repository's Actions variables by name.
func (c *Client) Variables(ctx context.Context, owner, repo string) (map[string]string, error) {
	out := map[string]string{}
	err := pages("variables of "+owner+"/"+repo, func(opts *gh.ListOptions) (*gh.Response, error) {
		// GitHub pages variables by 30 at most.
		opts.PerPage = 30
		list, resp, err := c.gh.Actions.ListRepoVariables(ctx, seg(owner), seg(repo), opts)
		if err = apiErr(resp, err); err != nil {
			return resp, err
		}
		if list != nil {
			for _, v := range list.Variables {
				out[v.Name] = v.Value
			}
		}
		return resp, nil
	})
	return out, err
}

// DirAt lists the names of a directory's entries at ref (files and directories); found is
// false when the directory does not exist there.
func (c *Client) DirAt(ctx context.Context, owner, repo, path, ref string) ([]string, bool, error) {
	file, dir, found, err := c.contents(ctx, owner, repo, path, ref)
	if !found || err != nil {
		return nil, false, err
	}
	if file != nil {
		return nil, false, fmt.Errorf("github: %s at %s in %s/%s is a file, not a directory", path, ref, owner, repo)
	}
	names := make([]string, 0, len(dir))
	for _, e := range dir {
		names = append(names, e.GetName())
	}
	return names, true, nil
}
