package githubsim

import (
	"net/http"
	"strings"
)

func environmentRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/environments", handle: listEnvironments},
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/environments/{env}/deployment-branch-policies", handle: listDeploymentPolicies},
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/environments/{env}/secrets", handle: listEnvironmentSecrets},
	}
}

func (c *call) environment(name string) *environment {
	for _, e := range c.repo.settings.environments {
		if strings.EqualFold(e.Name, name) {
			return e
		}
	}
	return nil
}

// listEnvironments answers GET /repos/{owner}/{repo}/environments:
// {"total_count", "environments"}, each with its protection rules and
// deployment_branch_policy (null when any branch or tag may deploy). Needs Actions: read.
func listEnvironments(c *call) reply {
	const docs = "/deployments/environments#list-environments"
	if c.lacks("actions") {
		return notAccessible(docs)
	}
	envs := c.repo.settings.environments
	lo, hi, link := c.page(len(envs), 30, 100)
	list := make([]map[string]any, 0, hi-lo)
	for _, e := range envs[lo:hi] {
		list = append(list, c.environmentJSON(e))
	}
	rep := okJSON(map[string]any{"total_count": len(envs), "environments": list})
	if link != "" {
		rep.header = http.Header{"Link": {link}}
	}
	return rep
}

func (c *call) environmentJSON(e *environment) map[string]any {
	rules := []map[string]any{}
	if e.WaitTimer > 0 {
		rules = append(rules, map[string]any{
			"id": e.id*10 + 1, "node_id": nodeID("GA", e.Name+"/wait"), "type": "wait_timer", "wait_timer": e.WaitTimer,
		})
	}
	if len(e.Reviewers) > 0 {
		reviewers := make([]map[string]any, 0, len(e.Reviewers))
		for i, login := range e.Reviewers {
			reviewers = append(reviewers, map[string]any{
				"type":     "User",
				"reviewer": map[string]any{"login": login, "id": 500 + i, "type": "User"},
			})
		}
		rules = append(rules, map[string]any{
			"id": e.id*10 + 2, "node_id": nodeID("GA", e.Name+"/reviewers"), "type": "required_reviewers",
			"prevent_self_review": true, "reviewers": reviewers,
		})
	}
	var policy any
	switch e.Policy {
	case "protected":
		policy = map[string]bool{"protected_branches": true, "custom_branch_policies": false}
	case "custom":
		policy = map[string]bool{"protected_branches": false, "custom_branch_policies": true}
	}
	return map[string]any{
		"id":                       e.id,
		"node_id":                  nodeID("EN", e.Name),
		"name":                     e.Name,
		"url":                      c.repoURL("/environments/%s", e.Name),
		"html_url":                 c.htmlURL("/deployments/activity_log?environments_filter=%s", e.Name),
		"created_at":               timestamp(c.s.seedTime),
		"updated_at":               timestamp(c.s.seedTime),
		"can_admins_bypass":        true,
		"protection_rules":         rules,
		"deployment_branch_policy": policy,
	}
}

// listDeploymentPolicies answers GET …/environments/{env}/deployment-branch-policies:
// {"total_count", "branch_policies": [{"id", "node_id", "name", "type"}]}. Needs Actions: read.
func listDeploymentPolicies(c *call) reply {
	const docs = "/deployments/branch-policies#list-deployment-branch-policies"
	if c.lacks("actions") {
		return notAccessible(docs)
	}
	e := c.environment(c.r.PathValue("env"))
	if e == nil {
		return notFound(docs)
	}
	var ps []DeploymentPolicy
	var ids []int64
	if e.Policy == "custom" {
		ps, ids = e.Policies, e.policyIDs
	}
	lo, hi, link := c.page(len(ps), 30, 100)
	list := make([]map[string]any, 0, hi-lo)
	for i := lo; i < hi; i++ {
		list = append(list, map[string]any{
			"id": ids[i], "node_id": nodeID("DBP", ps[i].Name), "name": ps[i].Name, "type": ps[i].Type,
		})
	}
	rep := okJSON(map[string]any{"total_count": len(ps), "branch_policies": list})
	if link != "" {
		rep.header = http.Header{"Link": {link}}
	}
	return rep
}

// listEnvironmentSecrets answers GET …/environments/{env}/secrets with the secrets'
// names and dates, never their values. Needs Environments: read.
func listEnvironmentSecrets(c *call) reply {
	const docs = "/actions/secrets#list-environment-secrets"
	if c.lacks("environments") {
		return notAccessible(docs)
	}
	e := c.environment(c.r.PathValue("env"))
	if e == nil {
		return notFound(docs)
	}
	return c.secretList(e.Secrets)
}
