package githubsim

import "net/http"

func repoRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}", handle: getRepo},
	}
}

// getRepo answers GET /repos/{owner}/{repo} with the fields of GitHub's full repository
// shape that a client reads, including "permissions": what the authenticated token may
// do there. GitHub sends permissions only to an authenticated caller, so an anonymous
// read gets none.
func getRepo(c *call) reply {
	body := map[string]any{
		"id":             c.repo.id,
		"node_id":        nodeID("REPO", c.repo.FullName()),
		"name":           c.repo.name,
		"full_name":      c.repo.FullName(),
		"owner":          map[string]any{"login": c.repo.owner, "type": "Organization"},
		"private":        false,
		"visibility":     "public",
		"default_branch": c.repo.defaultBranch,
		"url":            c.s.URL + "/repos/" + c.repo.FullName(),
		"html_url":       "https://github.com/" + c.repo.FullName(),
	}
	if c.token != c.s.anonymous {
		push := c.token.PushAccess
		body["permissions"] = map[string]bool{
			"admin": false, "maintain": false, "push": push, "triage": push, "pull": true,
		}
	}
	return okJSON(body)
}
