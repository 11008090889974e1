package githubsim

import (
	"net/http"
	"strconv"
)

func rulesetRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/rulesets", handle: listRulesets},
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/rulesets/{id}", handle: getRuleset},
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/rules/branches/{branch...}", handle: branchRules},
	}
}

// listRulesets answers GET /repos/{owner}/{repo}/rulesets: the summary of each ruleset
// (no conditions, rules or bypass actors, as GitHub lists them), organisation rulesets
// included unless includes_parents=false. Readable with the repository's metadata.
func listRulesets(c *call) reply {
	parents := c.r.URL.Query().Get("includes_parents") != "false"
	var list []*ruleset
	for _, rs := range c.repo.settings.rulesets {
		if rs.SourceType == "Repository" || parents {
			list = append(list, rs)
		}
	}
	lo, hi, link := c.page(len(list), 30, 100)
	out := make([]map[string]any, 0, hi-lo)
	for _, rs := range list[lo:hi] {
		out = append(out, c.rulesetJSON(rs, false))
	}
	rep := okJSON(out)
	if link != "" {
		rep.header = http.Header{"Link": {link}}
	}
	return rep
}

// getRuleset answers GET /repos/{owner}/{repo}/rulesets/{id} with the whole ruleset.
// GitHub shows bypass_actors only to callers who may edit the ruleset; a token without
// administration gets the ruleset without them.
func getRuleset(c *call) reply {
	const docs = "/repos/rules#get-a-repository-ruleset"
	id, err := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	if err != nil {
		return notFound(docs)
	}
	for _, rs := range c.repo.settings.rulesets {
		if rs.id == id {
			if rs.SourceType != "Repository" && c.r.URL.Query().Get("includes_parents") == "false" {
				return notFound(docs)
			}
			return okJSON(c.rulesetJSON(rs, true))
		}
	}
	return notFound(docs)
}

func (c *call) rulesetJSON(rs *ruleset, full bool) map[string]any {
	source := c.repo.FullName()
	if rs.SourceType == "Organization" {
		source = c.repo.owner
	}
	out := map[string]any{
		"id":          rs.id,
		"name":        rs.Name,
		"target":      rs.Target,
		"source_type": rs.SourceType,
		"source":      source,
		"enforcement": rs.Enforcement,
		"node_id":     nodeID("RRS", strconv.FormatInt(rs.id, 10)),
		"_links": map[string]any{
			"self": map[string]string{"href": c.repoURL("/rulesets/%d", rs.id)},
			"html": map[string]string{"href": c.htmlURL("/rules/%d", rs.id)},
		},
		"created_at": timestamp(c.s.seedTime),
		"updated_at": timestamp(c.s.seedTime),
	}
	if !full {
		return out
	}
	out["current_user_can_bypass"] = "never"
	out["conditions"] = map[string]any{"ref_name": map[string]any{
		"include": nonNil(rs.Include), "exclude": nonNil(rs.Exclude),
	}}
	rules := make([]map[string]any, 0, len(rs.Rules)+1)
	for _, t := range rs.Rules {
		rule := map[string]any{"type": t}
		if t == "update" {
			rule["parameters"] = map[string]any{"update_allows_fetch_and_merge": false}
		}
		rules = append(rules, rule)
	}
	if len(rs.StatusChecks) > 0 {
		rules = append(rules, statusChecksRule(rs.StatusChecks))
	}
	out["rules"] = rules
	if !c.lacks("administration") {
		actors := make([]map[string]any, 0, len(rs.Bypass))
		for _, a := range rs.Bypass {
			actor := map[string]any{"actor_type": a.ActorType, "bypass_mode": a.BypassMode}
			if a.ActorType == "DeployKey" {
				actor["actor_id"] = nil
			} else {
				actor["actor_id"] = a.ActorID
			}
			actors = append(actors, actor)
		}
		out["bypass_actors"] = actors
	}
	return out
}

func statusChecksRule(checks []string) map[string]any {
	list := make([]map[string]any, 0, len(checks))
	for _, ch := range checks {
		list = append(list, map[string]any{"context": ch})
	}
	return map[string]any{"type": "required_status_checks", "parameters": map[string]any{
		"strict_required_status_checks_policy": false,
		"do_not_enforce_on_create":             false,
		"required_status_checks":               list,
	}}
}

// branchRules answers GET /repos/{owner}/{repo}/rules/branches/{branch}: every rule of an
// active branch ruleset that applies to the branch (which need not exist), each with the
// ruleset it comes from. Readable with the repository's metadata.
func branchRules(c *call) reply {
	ref := "refs/heads/" + c.r.PathValue("branch")
	var rules []map[string]any
	for _, rs := range c.repo.settings.rulesets {
		if rs.Target != "branch" || rs.Enforcement != "active" || !c.repo.refMatches(rs, ref) {
			continue
		}
		source := c.repo.FullName()
		if rs.SourceType == "Organization" {
			source = c.repo.owner
		}
		meta := func(rule map[string]any) map[string]any {
			rule["ruleset_source_type"] = rs.SourceType
			rule["ruleset_source"] = source
			rule["ruleset_id"] = rs.id
			return rule
		}
		for _, t := range rs.Rules {
			rules = append(rules, meta(map[string]any{"type": t}))
		}
		if len(rs.StatusChecks) > 0 {
			rules = append(rules, meta(statusChecksRule(rs.StatusChecks)))
		}
	}
	lo, hi, link := c.page(len(rules), 30, 100)
	rep := okJSON(append([]map[string]any{}, rules[lo:hi]...))
	if link != "" {
		rep.header = http.Header{"Link": {link}}
	}
	return rep
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
