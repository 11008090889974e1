package githubsim

import "net/http"

func protectionRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks", handle: getRequiredStatusChecks},
	}
}

// getRequiredStatusChecks answers GET …/branches/{branch}/protection/required_status_checks
// as GitHub does: 404 "Branch not found", "Branch not protected" or "Required status
// checks not enabled", else the checks (contexts and checks). Needs Administration: read.
func getRequiredStatusChecks(c *call) reply {
	const docs = "/branches/branch-protection#get-status-checks-protection"
	if c.lacks("administration") {
		return notAccessible(docs)
	}
	branch := c.r.PathValue("branch")
	if _, ok := c.repo.branches[branch]; !ok {
		return errorReply(http.StatusNotFound, "Branch not found", docs)
	}
	p := c.repo.settings.protection[branch]
	if p == nil {
		return errorReply(http.StatusNotFound, "Branch not protected", docs)
	}
	if len(p.checks) == 0 {
		return errorReply(http.StatusNotFound, "Required status checks not enabled", docs)
	}
	checks := make([]map[string]any, 0, len(p.checks))
	for _, ch := range p.checks {
		checks = append(checks, map[string]any{"context": ch, "app_id": nil})
	}
	self := c.repoURL("/branches/%s/protection/required_status_checks", branch)
	return okJSON(map[string]any{
		"url": self, "strict": true, "contexts": p.checks, "checks": checks, "contexts_url": self + "/contexts",
	})
}
