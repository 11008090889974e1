package githubsim

import (
	"net/http"
	"path"
	"slices"
	"strings"
)

// repoSettings is what a repository's settings pages hold: rulesets, environments, classic
// branch protection, and the names (never values) of secrets and variables.
type repoSettings struct {
	rulesets     []*ruleset
	environments []*environment
	protection   map[string]*protection // branch → protection
	secrets      []string
	orgSecrets   []string
	variables    []variable
}

// Ruleset seeds a repository ruleset.
type Ruleset struct {
	Name string
	// Target is branch or tag.
	Target string
	// Enforcement is active (the default), evaluate or disabled.
	Enforcement string
	// SourceType is Repository (the default) or Organization.
	SourceType string
	// Include and Exclude are ref name patterns, e.g. refs/tags/v*, ~ALL, ~DEFAULT_BRANCH.
	Include, Exclude []string
	// Rules are rule types without parameters: creation, update, deletion, non_fast_forward, ….
	Rules []string
	// StatusChecks, when set, adds a required_status_checks rule requiring these contexts.
	StatusChecks []string
	Bypass       []BypassActor
}

// BypassActor may bypass a ruleset. For RepositoryRole, ActorID 5 is admin, 4 write, 2
// maintain; OrganizationAdmin has ActorID 1.
type BypassActor struct {
	ActorID   int64
	ActorType string
	// BypassMode is always (the default) or pull_request.
	BypassMode string
}

type ruleset struct {
	Ruleset
	id int64
}

// Environment seeds a deployment environment.
type Environment struct {
	Name string
	// Reviewers are the user logins of a required_reviewers protection rule.
	Reviewers []string
	// WaitTimer adds a wait_timer protection rule (minutes).
	WaitTimer int
	// Policy is "" (any branch or tag may deploy), "protected" (protected branches) or
	// "custom" (the patterns of Policies).
	Policy   string
	Policies []DeploymentPolicy
	// Secrets are the names of the environment's secrets.
	Secrets []string
}

// DeploymentPolicy is a custom deployment pattern; Type is branch or tag.
type DeploymentPolicy struct {
	Name, Type string
}

type environment struct {
	Environment
	id        int64
	policyIDs []int64
}

type protection struct {
	checks []string
}

type variable struct {
	name, value string
}

// AddRuleset adds a ruleset and returns its id.
func (r *Repo) AddRuleset(rs Ruleset) int64 {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if rs.Enforcement == "" {
		rs.Enforcement = "active"
	}
	if rs.SourceType == "" {
		rs.SourceType = "Repository"
	}
	for i := range rs.Bypass {
		if rs.Bypass[i].BypassMode == "" {
			rs.Bypass[i].BypassMode = "always"
		}
	}
	n := &ruleset{Ruleset: rs, id: r.s.newID()}
	r.settings.rulesets = append(r.settings.rulesets, n)
	return n.id
}

// AddEnvironment adds a deployment environment.
func (r *Repo) AddEnvironment(e Environment) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	n := &environment{Environment: e, id: r.s.newID()}
	for range e.Policies {
		n.policyIDs = append(n.policyIDs, r.s.newID())
	}
	r.settings.environments = append(r.settings.environments, n)
}

// ProtectBranch gives a branch classic protection requiring these status checks (none:
// protection without required status checks).
func (r *Repo) ProtectBranch(branch string, checks ...string) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.settings.protection == nil {
		r.settings.protection = map[string]*protection{}
	}
	r.settings.protection[branch] = &protection{checks: append([]string(nil), checks...)}
}

// AddSecret adds repository secrets by name.
func (r *Repo) AddSecret(names ...string) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.settings.secrets = append(r.settings.secrets, names...)
}

// AddOrgSecret shares organisation secrets with the repository, by name.
func (r *Repo) AddOrgSecret(names ...string) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.settings.orgSecrets = append(r.settings.orgSecrets, names...)
}

// SetVariable sets a repository variable.
func (r *Repo) SetVariable(name, value string) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	for i, v := range r.settings.variables {
		if strings.EqualFold(v.name, name) {
			r.settings.variables[i].value = value
			return
		}
	}
	r.settings.variables = append(r.settings.variables, variable{name: strings.ToUpper(name), value: value})
}

// lacks reports whether the call's token misses a fine-grained permission.
func (c *call) lacks(permission string) bool {
	return slices.Contains(c.token.Lacks, permission)
}

// notAccessible is GitHub's 403 for a fine-grained token without the permission an
// endpoint needs.
func notAccessible(docs string) reply {
	return errorReply(http.StatusForbidden, "Resource not accessible by personal access token", docs)
}

// refMatches applies a ruleset's ref_name condition to a full ref name (refs/heads/x or
// refs/tags/x): ~ALL matches every ref, ~DEFAULT_BRANCH the default branch, other
// patterns are fnmatch-like ("*" within a segment, "**" across).
func (r *Repo) refMatches(rs *ruleset, ref string) bool {
	match := func(p string) bool {
		switch p {
		case "~ALL":
			return true
		case "~DEFAULT_BRANCH":
			return ref == "refs/heads/"+r.defaultBranch
		}
		if strings.Contains(p, "**") {
			prefix, _, _ := strings.Cut(p, "**")
			return strings.HasPrefix(ref, prefix)
		}
		ok, err := path.Match(p, ref)
		return err == nil && ok
	}
	return slices.ContainsFunc(rs.Include, match) && !slices.ContainsFunc(rs.Exclude, match)
}
