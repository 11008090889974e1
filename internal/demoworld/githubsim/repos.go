package githubsim

import "net/http"

func repoRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}", handle: getRepo},
	}
}

// getRepo answers GET /repos/{owner}/{repo} with GitHub's full repository shape,
// including "permissions": the role there of the user the token acts for, not what the
// token was granted (a fine-grained token that may only read contents shows push for a
// user who may write). GitHub sends permissions only to an authenticated caller, so an
// anonymous read gets none.
func getRepo(c *call) reply {
	body := c.s.repository(c.repo)
	if c.token != c.s.anonymous {
		body["permissions"] = rolePermissions(c.token.role())
	}
	return okJSON(body)
}
