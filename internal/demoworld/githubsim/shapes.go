package githubsim

import (
	"hash/fnv"
	"maps"
	"strconv"
	"time"
)

// The shapes GitHub nests in many answers, with every field its API description requires,
// so a client that reads any of them reads what GitHub would send.

// simEpoch is when the simulated repositories were created: before anything seeded.
var simEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// accountID is a stable id for an account the simulator has no record of.
func accountID(login string) int64 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(login))
	return int64(h.Sum32()%9_000_000) + 1_000_000
}

// user is GitHub's simple-user shape of an account; typ is User, Organization or Bot.
func (s *Server) user(login, typ string) map[string]any {
	api := s.URL + "/users/" + login
	id := accountID(login)
	if login == "github-actions[bot]" {
		id = 41898282 // the id GitHub gives that bot
	}
	return map[string]any{
		"login":               login,
		"id":                  id,
		"node_id":             nodeID(typ, login),
		"avatar_url":          "https://avatars.githubusercontent.com/u/" + strconv.FormatInt(id, 10) + "?v=4",
		"gravatar_id":         "",
		"url":                 api,
		"html_url":            "https://github.com/" + login,
		"followers_url":       api + "/followers",
		"following_url":       api + "/following{/other_user}",
		"gists_url":           api + "/gists{/gist_id}",
		"starred_url":         api + "/starred{/owner}{/repo}",
		"subscriptions_url":   api + "/subscriptions",
		"organizations_url":   api + "/orgs",
		"repos_url":           api + "/repos",
		"events_url":          api + "/events{/privacy}",
		"received_events_url": api + "/received_events",
		"type":                typ,
		"user_view_type":      "public",
		"site_admin":          false,
	}
}

// repository is GitHub's repository shape of r, with the fields of the description's
// repository, full-repository and minimal-repository schemas (one is a superset of the
// others' required fields).
func (s *Server) repository(r *Repo) map[string]any {
	created := timestamp(simEpoch)
	body := map[string]any{
		"id":                r.id,
		"node_id":           nodeID("REPO", r.FullName()),
		"name":              r.name,
		"full_name":         r.FullName(),
		"owner":             s.user(r.owner, "Organization"),
		"private":           false,
		"visibility":        "public",
		"description":       nil,
		"fork":              false,
		"mirror_url":        nil,
		"homepage":          nil,
		"language":          nil,
		"license":           nil,
		"default_branch":    r.defaultBranch,
		"size":              0,
		"forks":             0,
		"forks_count":       0,
		"stargazers_count":  0,
		"watchers":          0,
		"watchers_count":    0,
		"open_issues":       0,
		"open_issues_count": 0,
		"network_count":     0,
		"subscribers_count": 0,
		"has_issues":        true,
		"has_projects":      true,
		"has_wiki":          true,
		"has_pages":         false,
		"has_downloads":     true,
		"has_discussions":   false,
		"archived":          false,
		"disabled":          false,
		"is_template":       false,
		"topics":            []string{},
		"created_at":        created,
		"updated_at":        created,
		"pushed_at":         created,
	}
	maps.Copy(body, s.repositoryURLs(r))
	return body
}

// repositoryURLs are the links of GitHub's repository shape of r: its pages, its clone
// addresses and the API's URL templates for what it holds.
func (s *Server) repositoryURLs(r *Repo) map[string]any {
	api := s.URL + "/repos/" + r.FullName()
	return map[string]any{
		"url":               api,
		"html_url":          "https://github.com/" + r.FullName(),
		"archive_url":       api + "/{archive_format}{/ref}",
		"assignees_url":     api + "/assignees{/user}",
		"blobs_url":         api + "/git/blobs{/sha}",
		"branches_url":      api + "/branches{/branch}",
		"collaborators_url": api + "/collaborators{/collaborator}",
		"comments_url":      api + "/comments{/number}",
		"commits_url":       api + "/commits{/sha}",
		"compare_url":       api + "/compare/{base}...{head}",
		"contents_url":      api + "/contents/{+path}",
		"contributors_url":  api + "/contributors",
		"deployments_url":   api + "/deployments",
		"downloads_url":     api + "/downloads",
		"events_url":        api + "/events",
		"forks_url":         api + "/forks",
		"git_commits_url":   api + "/git/commits{/sha}",
		"git_refs_url":      api + "/git/refs{/sha}",
		"git_tags_url":      api + "/git/tags{/sha}",
		"hooks_url":         api + "/hooks",
		"issue_comment_url": api + "/issues/comments{/number}",
		"issue_events_url":  api + "/issues/events{/number}",
		"issues_url":        api + "/issues{/number}",
		"keys_url":          api + "/keys{/key_id}",
		"labels_url":        api + "/labels{/name}",
		"languages_url":     api + "/languages",
		"merges_url":        api + "/merges",
		"milestones_url":    api + "/milestones{/number}",
		"notifications_url": api + "/notifications{?since,all,participating}",
		"pulls_url":         api + "/pulls{/number}",
		"releases_url":      api + "/releases{/id}",
		"stargazers_url":    api + "/stargazers",
		"statuses_url":      api + "/statuses/{sha}",
		"subscribers_url":   api + "/subscribers",
		"subscription_url":  api + "/subscription",
		"tags_url":          api + "/tags",
		"teams_url":         api + "/teams",
		"trees_url":         api + "/git/trees{/sha}",
		"git_url":           "git://github.com/" + r.FullName() + ".git",
		"ssh_url":           "git@github.com:" + r.FullName() + ".git",
		"clone_url":         "https://github.com/" + r.FullName() + ".git",
		"svn_url":           "https://github.com/" + r.FullName(),
	}
}
