package githubsim

import "net/http"

func actionsSettingsRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/actions/secrets", handle: listRepoSecrets},
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/actions/organization-secrets", handle: listRepoOrgSecrets},
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/actions/variables", handle: listRepoVariables},
	}
}

// listRepoSecrets answers GET …/actions/secrets: names and dates, never values. Needs
// Secrets: read.
func listRepoSecrets(c *call) reply {
	if c.lacks("secrets") {
		return notAccessible("/actions/secrets#list-repository-secrets")
	}
	return c.secretList(c.repo.settings.secrets)
}

// listRepoOrgSecrets answers GET …/actions/organization-secrets: the organisation
// secrets shared with the repository. Needs Secrets: read.
func listRepoOrgSecrets(c *call) reply {
	if c.lacks("secrets") {
		return notAccessible("/actions/secrets#list-repository-organization-secrets")
	}
	return c.secretList(c.repo.settings.orgSecrets)
}

// secretList is GitHub's {"total_count", "secrets"} page of secret names (30 a page by
// default, at most 100).
func (c *call) secretList(names []string) reply {
	lo, hi, link := c.page(len(names), 30, 100)
	list := make([]map[string]any, 0, hi-lo)
	for _, n := range names[lo:hi] {
		list = append(list, map[string]any{
			"name": n, "created_at": timestamp(c.s.seedTime), "updated_at": timestamp(c.s.seedTime),
		})
	}
	rep := okJSON(map[string]any{"total_count": len(names), "secrets": list})
	if link != "" {
		rep.header = http.Header{"Link": {link}}
	}
	return rep
}

// listRepoVariables answers GET …/actions/variables: {"total_count", "variables"} with
// names and values, 10 a page by default and at most 30, as GitHub pages them. Needs
// Variables: read.
func listRepoVariables(c *call) reply {
	if c.lacks("variables") {
		return notAccessible("/actions/variables#list-repository-variables")
	}
	vars := c.repo.settings.variables
	lo, hi, link := c.page(len(vars), 10, 30)
	list := make([]map[string]any, 0, hi-lo)
	for _, v := range vars[lo:hi] {
		list = append(list, map[string]any{
			"name": v.name, "value": v.value, "created_at": timestamp(c.s.seedTime), "updated_at": timestamp(c.s.seedTime),
		})
	}
	rep := okJSON(map[string]any{"total_count": len(vars), "variables": list})
	if link != "" {
		rep.header = http.Header{"Link": {link}}
	}
	return rep
}
