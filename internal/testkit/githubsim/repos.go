package githubsim

import "net/http"

func repoRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}", handle: getRepo},
	}
}

// getRepo answers GET /repos/{owner}/{repo} with GitHub's full repository shape,
// including "permissions": what the authenticated token may do there. GitHub sends
// permissions only to an authenticated caller, so an anonymous read gets none.
func getRepo(c *call) reply {
	body := c.s.repository(c.repo)
	if c.token != c.s.anonymous {
		push := c.token.PushAccess
		body["permissions"] = map[string]bool{
			"admin": false, "maintain": false, "push": push, "triage": push, "pull": true,
		}
	}
	return okJSON(body)
}
