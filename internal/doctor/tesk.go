package doctor

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"dagger/shipyard/internal/github"
)

// tesk-core's settings, from its seed.
const (
	// RequiredCheck is the one status check CI reports and branches require.
	RequiredCheck = "CI passed"
	// ReleaseEnv gates the release's push and publish jobs.
	ReleaseEnv = "release"
	// DevImagesEnv holds the Docker Hub credentials of the pushes to dev.
	DevImagesEnv = "dev-images"
)

// ProtectedBranches returns the branches that must require RequiredCheck.
func ProtectedBranches() []string {
	return []string{"dev", "main"}
}

// DockerHubSecrets returns the secret names both environments need.
func DockerHubSecrets() []string {
	return []string{"DOCKERHUB_LOGIN", "DOCKERHUB_TOKEN"}
}

// Permissions a check needs, as GitHub's fine-grained tokens name them.
const (
	permMetadata     = "Metadata: read"
	permBypass       = "a token that may edit rulesets (a repository admin's, or fine-grained Administration: read and write): GitHub shows a ruleset's bypass list only to those"
	permAdminRead    = "Administration: read (classic branch protection)"
	permActions      = "Actions: read (environments and their deployment policies)"
	permEnvironments = "Environments: read (environment secret names)"
	permSecrets      = "Secrets: read (secret names; values are never readable)"
	permVariables    = "Variables: read"
	permContents     = "Contents: read"
)

// File is a file of the default branch as read.
type File struct {
	Path    string `json:"path"`
	Found   bool   `json:"found"`
	Denied  bool   `json:"denied,omitempty"`
	Content string `json:"-"`
}

// BranchChecks are the status checks a branch requires, from both places GitHub keeps them.
type BranchChecks struct {
	// Rulesets are the checks active branch rulesets require.
	Rulesets       []string `json:"rulesets"`
	RulesetsDenied bool     `json:"rulesets_denied,omitempty"`
	// Protection are the checks of classic branch protection; NotProtected when it has none.
	Protection       []string `json:"protection"`
	NotProtected     bool     `json:"not_protected,omitempty"`
	ProtectionDenied bool     `json:"protection_denied,omitempty"`
}

// EnvFacts is an environment as read.
type EnvFacts struct {
	Found             bool                      `json:"found"`
	Env               github.Environment        `json:"environment"`
	Policies          []github.DeploymentPolicy `json:"policies,omitempty"`
	PoliciesDenied    bool                      `json:"policies_denied,omitempty"`
	SecretNames       []string                  `json:"secret_names,omitempty"`
	SecretNamesDenied bool                      `json:"secret_names_denied,omitempty"`
}

// TeskFacts is what the tesk-core checks look at.
type TeskFacts struct {
	Repo              string           `json:"repo"`
	TagRulesets       []github.Ruleset `json:"tag_rulesets"`
	TagRulesetsDenied bool             `json:"tag_rulesets_denied,omitempty"`
	// RepoSecrets and OrgSecrets are the names of the repository's secrets and of the
	// organisation secrets shared with it: every workflow of the repository reads them.
	RepoSecrets       []string                `json:"repo_secrets,omitempty"`
	RepoSecretsDenied bool                    `json:"repo_secrets_denied,omitempty"`
	OrgSecrets        []string                `json:"org_secrets,omitempty"`
	OrgSecretsDenied  bool                    `json:"org_secrets_denied,omitempty"`
	EnvironmentsRead  bool                    `json:"environments_read"` // false: denied
	Environments      map[string]EnvFacts     `json:"environments"`      // by name: ReleaseEnv, DevImagesEnv
	Checks            map[string]BranchChecks `json:"checks"`            // by branch
	Dependabot        File                    `json:"dependabot"`
	Codeowners        File                    `json:"codeowners"`
	WorkflowsDenied   bool                    `json:"workflows_denied,omitempty"`
	Workflows         []File                  `json:"workflows"`
}

// EvaluateTesk decides every tesk-core check.
func EvaluateTesk(f TeskFacts) Report {
	r := Report{Repo: f.Repo, System: TeskCore}
	r.Findings = append(r.Findings, tagCreate(f), tagImmutable(f))
	r.Findings = append(r.Findings, releaseTagsOnly(f), releaseReviewers(f), devImagesDevOnly(f))
	for _, env := range []string{ReleaseEnv, DevImagesEnv} {
		r.Findings = append(r.Findings, envSecrets(f, env))
	}
	r.Findings = append(r.Findings, dockerHubOnlyInEnvironments(f))
	for _, b := range ProtectedBranches() {
		r.Findings = append(r.Findings, requiredCheck(f, b))
	}
	r.Findings = append(r.Findings, dependabot(f.Repo, f.Dependabot), codeowners(f.Codeowners), shipyardPinned(f))
	return r
}

// rulesetsURL is where a repository's rulesets are edited.
func rulesetsURL(repo string) string { return "https://github.com/" + repo + "/settings/rules" }

// coversVTags reports whether a ruleset's ref condition applies to every v* tag: an
// include of ~ALL, refs/tags/*, refs/tags/** or refs/tags/v*, and no exclude that could
// match a v* tag.
func coversVTags(rs github.Ruleset) bool {
	included := slices.ContainsFunc(rs.Include, func(p string) bool {
		switch p {
		case "~ALL", "refs/tags/*", "refs/tags/**", "refs/tags/**/*", "refs/tags/v*", "refs/tags/v**":
			return true
		}
		return false
	})
	excluded := slices.ContainsFunc(rs.Exclude, func(p string) bool {
		if p == "~ALL" {
			return true
		}
		rest, ok := strings.CutPrefix(p, "refs/tags/")
		return ok && rest != "" && strings.ContainsAny(rest[:1], "v*?[")
	})
	return included && !excluded
}

// activeVRulesets are the active tag rulesets over every v* tag that have the rule.
func activeVRulesets(f TeskFacts, rule string) []github.Ruleset {
	var out []github.Ruleset
	for _, rs := range f.TagRulesets {
		if rs.Target == "tag" && rs.Enforcement == "active" && coversVTags(rs) && slices.Contains(rs.Rules, rule) {
			out = append(out, rs)
		}
	}
	return out
}

// isAdmin reports whether a bypass actor is an admin: the repository role admin (5) or
// the organisation's admins.
func isAdmin(a github.BypassActor) bool {
	return (a.Type == "RepositoryRole" && a.ID == 5) || a.Type == "OrganizationAdmin"
}

func actorName(a github.BypassActor) string {
	switch {
	case a.Type == "RepositoryRole" && a.ID == 2:
		return "the maintain role"
	case a.Type == "RepositoryRole" && a.ID == 4:
		return "the write role"
	case a.Type == "DeployKey":
		return "deploy keys"
	}
	return fmt.Sprintf("%s %d", a.Type, a.ID)
}

func names(rs []github.Ruleset) string {
	var ns []string
	for _, r := range rs {
		ns = append(ns, fmt.Sprintf("%q (id %d)", r.Name, r.ID))
	}
	return strings.Join(ns, ", ")
}

const tagRulesetFix = "Settings → Rules → Rulesets → New ruleset → New tag ruleset (%s): enforcement Active, target tags matching refs/tags/v*, rules Restrict creations, Restrict updates and Restrict deletions, bypass list Repository admin only; or `gh api -X POST repos/%s/rulesets --input ruleset.json` with {\"name\":\"release tags\",\"target\":\"tag\",\"enforcement\":\"active\",\"conditions\":{\"ref_name\":{\"include\":[\"refs/tags/v*\"],\"exclude\":[]}},\"rules\":[{\"type\":\"creation\"},{\"type\":\"update\"},{\"type\":\"deletion\"}],\"bypass_actors\":[{\"actor_id\":5,\"actor_type\":\"RepositoryRole\",\"bypass_mode\":\"always\"}]}"

// tagCreate: only admins may create v* tags. An actor may create one when it bypasses
// every active ruleset that restricts creating it.
func tagCreate(f TeskFacts) Finding {
	const check = "tag-create"
	why := "a pushed v* tag starts the Release workflow: anyone who may create one can start a release"
	if f.TagRulesetsDenied {
		return cannot(check, "the tag rulesets", permMetadata, why)
	}
	rs := activeVRulesets(f, "creation")
	if len(rs) == 0 {
		return fail(check, "no active tag ruleset restricts creating v* tags", why, fmt.Sprintf(tagRulesetFix, rulesetsURL(f.Repo), f.Repo))
	}
	for _, r := range rs {
		if !r.BypassKnown {
			return cannot(check, "who may bypass the tag rulesets "+names(rs), permBypass, why)
		}
	}
	// Actors in every ruleset's bypass list (bypass_mode always: tags are not merged
	// through pull requests) may create v* tags.
	creators := map[github.BypassActor]int{}
	adminsIn := 0
	for _, r := range rs {
		admin := false
		seen := map[github.BypassActor]bool{}
		for _, a := range r.Bypass {
			if a.Mode != "always" {
				continue
			}
			admin = admin || isAdmin(a)
			key := github.BypassActor{Type: a.Type, ID: a.ID}
			if !seen[key] {
				seen[key] = true
				creators[key]++
			}
		}
		if admin {
			adminsIn++
		}
	}
	var others []string
	for a, n := range creators {
		if n == len(rs) && !isAdmin(a) {
			others = append(others, actorName(a))
		}
	}
	slices.Sort(others)
	if len(others) > 0 {
		return fail(check, fmt.Sprintf("besides admins, %s may create v* tags (bypass list of %s)", strings.Join(others, ", "), names(rs)),
			why, fmt.Sprintf("%s → %s → Bypass list: keep only Repository admin", rulesetsURL(f.Repo), names(rs)))
	}
	if adminsIn < len(rs) {
		return fail(check, fmt.Sprintf("nobody may create v* tags, not even admins (%s has no admin in its bypass list)", names(rs)),
			"releases cannot be tagged at all",
			fmt.Sprintf("%s → %s → Bypass list: add Repository admin (actor_type RepositoryRole, actor_id 5, bypass_mode always)", rulesetsURL(f.Repo), names(rs)))
	}
	return pass(check, "only admins may create v* tags ("+names(rs)+")")
}

// tagImmutable: nobody, admins included, may move or delete a v* tag.
func tagImmutable(f TeskFacts) Finding {
	const check = "tag-immutable"
	why := "a moved or deleted v* tag would point a published release at other code than the images were built from"
	if f.TagRulesetsDenied {
		return cannot(check, "the tag rulesets", permMetadata, why)
	}
	fix := fmt.Sprintf("%s → New tag ruleset \"release tags are immutable\": enforcement Active, target refs/tags/v*, rules Restrict updates and Restrict deletions, empty bypass list; or `gh api -X POST repos/%s/rulesets` with {\"name\":\"release tags are immutable\",\"target\":\"tag\",\"enforcement\":\"active\",\"conditions\":{\"ref_name\":{\"include\":[\"refs/tags/v*\"],\"exclude\":[]}},\"rules\":[{\"type\":\"update\"},{\"type\":\"deletion\"}],\"bypass_actors\":[]}",
		rulesetsURL(f.Repo), f.Repo)
	var missing []string
	unknown := false
	for _, rule := range []string{"update", "deletion"} {
		rs := activeVRulesets(f, rule)
		held := false
		for _, r := range rs {
			if !r.BypassKnown {
				unknown = true
				continue
			}
			if len(r.Bypass) == 0 {
				held = true
			}
		}
		if !held {
			missing = append(missing, rule)
		}
	}
	switch {
	case len(missing) == 0:
		return pass(check, "no one may move or delete v* tags")
	case unknown:
		return cannot(check, "who may bypass the tag rulesets", permBypass, why)
	}
	verbs := strings.NewReplacer("update", "move", "deletion", "delete").Replace(strings.Join(missing, " or "))
	return fail(check, "some actor may still "+verbs+" v* tags: no active tag ruleset without bypass actors restricts it", why, fix)
}

func envURL(repo string) string { return "https://github.com/" + repo + "/settings/environments" }

// envFinding handles what every environment check shares: the list denied, or the
// environment missing. ok is false when the finding is already decided.
func envFinding(f TeskFacts, check, env, why string) (EnvFacts, Finding, bool) {
	if !f.EnvironmentsRead {
		return EnvFacts{}, cannot(check, "the environments", permActions, why), false
	}
	e := f.Environments[env]
	if !e.Found {
		return e, fail(check, "the environment "+env+" does not exist", why,
			fmt.Sprintf("%s → New environment %q; or `gh api -X PUT repos/%s/environments/%s`", envURL(f.Repo), env, f.Repo, env)), false
	}
	return e, Finding{}, true
}

// releaseTagsOnly: the release environment accepts only v* tags.
func releaseTagsOnly(f TeskFacts) Finding {
	return acceptsOnly(f, onlyPolicy{
		check: "release-tags-only", env: ReleaseEnv,
		why:  "the release jobs get the Docker Hub credentials from this environment: a run from any other branch or tag could publish",
		rule: "the tag rule v*", policy: "-f name='v*' -f type=tag",
		accepts: func(p github.DeploymentPolicy) bool {
			return p.Type == "tag" && strings.HasPrefix(p.Name, "v")
		},
		protected: "protected branches, not v* tags",
		none:      "no tag", noneWhy: "the release jobs cannot run",
		only: "only v* tags",
	})
}

// devImagesDevOnly: the dev-images environment accepts only the branch dev, whose pushes
// the dev workflow publishes.
func devImagesDevOnly(f TeskFacts) Finding {
	return acceptsOnly(f, onlyPolicy{
		check: "dev-images-branches", env: DevImagesEnv,
		why: "the dev jobs get the Docker Hub credentials from this environment: a job of any other branch that names it, " +
			"a pull request's branch included, could read them and publish",
		rule: "the branch rule dev", policy: "-f name=dev -f type=branch",
		accepts: func(p github.DeploymentPolicy) bool {
			return p.Type == "branch" && p.Name == "dev"
		},
		protected: "every protected branch, not dev alone",
		none:      "no branch", noneWhy: "the dev jobs cannot publish",
		only: "only the branch dev",
	})
}

// onlyPolicy is the one deployment policy an environment that hands out publishing
// credentials must accept, and how its findings word it.
type onlyPolicy struct {
	check, env, why string
	// rule is the policy as the settings page names it; policy, as gh api's fields.
	rule, policy string
	// accepts tells the policy (or, for tags, a policy as strict) from any other.
	accepts func(github.DeploymentPolicy) bool
	// What the environment accepts when it follows protected branches, when it has no
	// policy (and what then breaks), and when it is right.
	protected, none, noneWhy, only string
}

// acceptsOnly: the environment accepts what o names and nothing else.
func acceptsOnly(f TeskFacts, o onlyPolicy) Finding {
	e, done, ok := envFinding(f, o.check, o.env, o.why)
	if !ok {
		return done
	}
	fix := fmt.Sprintf("%s/%s → Deployment branches and tags: Selected branches and tags, with only %s; or `gh api -X PUT repos/%s/environments/%s -F deployment_branch_policy[protected_branches]=false -F deployment_branch_policy[custom_branch_policies]=true` then `gh api -X POST repos/%s/environments/%s/deployment-branch-policies %s` (and delete any other policy)",
		envURL(f.Repo), o.env, o.rule, f.Repo, o.env, f.Repo, o.env, o.policy)
	switch e.Env.Policy {
	case github.PolicyAll:
		return fail(o.check, "the environment "+o.env+" accepts every branch and tag", o.why, fix)
	case github.PolicyProtected:
		return fail(o.check, "the environment "+o.env+" accepts "+o.protected, o.why, fix)
	}
	if e.PoliciesDenied {
		return cannot(o.check, "the deployment policies of "+o.env, permActions, o.why)
	}
	var others []string
	accepted := false
	for _, p := range e.Policies {
		if o.accepts(p) {
			accepted = true
			continue
		}
		others = append(others, fmt.Sprintf("%s %q", p.Type, p.Name))
	}
	switch {
	case len(others) > 0:
		return fail(o.check, "the environment "+o.env+" also accepts "+strings.Join(others, ", "), o.why, fix)
	case !accepted:
		return fail(o.check, "the environment "+o.env+" accepts "+o.none+" (no deployment policy)", o.noneWhy, fix)
	}
	return pass(o.check, "the environment "+o.env+" accepts "+o.only)
}

// releaseReviewers: the release environment has required reviewers.
func releaseReviewers(f TeskFacts) Finding {
	const check = "release-reviewers"
	why := "pushing and publishing a release each wait for a maintainer's approval; without reviewers they run unattended"
	e, done, ok := envFinding(f, check, ReleaseEnv, why)
	if !ok {
		return done
	}
	if e.Env.RequiredReviewers == 0 {
		return fail(check, "the environment release has no required reviewers", why,
			fmt.Sprintf("%s/%s → Required reviewers: add the maintainers; or `gh api -X PUT repos/%s/environments/%s --input env.json` with {\"reviewers\":[{\"type\":\"Team\",\"id\":TEAM_ID}]}", envURL(f.Repo), ReleaseEnv, f.Repo, ReleaseEnv))
	}
	return pass(check, fmt.Sprintf("the environment release requires a review (%d reviewer(s))", e.Env.RequiredReviewers))
}

// envSecrets: the environment exists and has the Docker Hub secret names.
func envSecrets(f TeskFacts, env string) Finding {
	check := "environment-secrets:" + env
	why := "the image pushes of " + map[string]string{ReleaseEnv: "a release", DevImagesEnv: "each push to dev"}[env] + " log in to Docker Hub with these secrets of the environment " + env
	e, done, ok := envFinding(f, check, env, why)
	if !ok {
		return done
	}
	if e.SecretNamesDenied {
		return cannot(check, "the secret names of "+env, permEnvironments, why)
	}
	var missing []string
	for _, s := range DockerHubSecrets() {
		if !slices.Contains(e.SecretNames, s) {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		var cmds []string
		for _, s := range missing {
			cmds = append(cmds, fmt.Sprintf("`gh secret set %s --env %s --repo %s`", s, env, f.Repo))
		}
		return fail(check, "the environment "+env+" lacks the secret(s) "+strings.Join(missing, ", "), why,
			fmt.Sprintf("%s/%s → Environment secrets; or %s", envURL(f.Repo), env, strings.Join(cmds, " and ")))
	}
	return pass(check, "the environment "+env+" has "+strings.Join(DockerHubSecrets(), " and ")+" (names only; values are never read)")
}

// dockerHubOnlyInEnvironments: the Docker Hub secrets are not repository or organisation
// secrets, which every workflow of the repository can read.
func dockerHubOnlyInEnvironments(f TeskFacts) Finding {
	const check = "dockerhub-secrets-in-environments"
	why := "the Docker Hub token publishes images: in the environments release and dev-images only their jobs get it; as a repository or organisation secret every workflow, a pull request's included, can read it"
	var exposed, cmds []string
	for _, s := range DockerHubSecrets() {
		if slices.Contains(f.RepoSecrets, s) {
			exposed = append(exposed, s+" (repository)")
			cmds = append(cmds, fmt.Sprintf("`gh secret delete %s --repo %s`", s, f.Repo))
		}
		if slices.Contains(f.OrgSecrets, s) {
			exposed = append(exposed, s+" (organisation)")
		}
	}
	if len(exposed) > 0 {
		fix := "keep them only as secrets of the environments " + ReleaseEnv + " and " + DevImagesEnv
		if len(cmds) > 0 {
			fix += ": " + strings.Join(cmds, " and ")
		}
		if len(cmds) < len(exposed) {
			fix += "; stop sharing the organisation secrets with " + f.Repo
		}
		return fail(check, "Docker Hub secrets outside the environments: "+strings.Join(exposed, ", "), why, fix)
	}
	var denied []string
	if f.RepoSecretsDenied {
		denied = append(denied, "the repository")
	}
	if f.OrgSecretsDenied {
		denied = append(denied, "the organisation")
	}
	if len(denied) > 0 {
		return cannot(check, "the secret names of "+strings.Join(denied, " and "), permSecrets, why)
	}
	return pass(check, "no Docker Hub secret is a repository or organisation secret (names only; values are never read)")
}

// requiredCheck: RequiredCheck is required on the branch, by a ruleset or by classic
// protection.
func requiredCheck(f TeskFacts, branch string) Finding {
	check := "required-check:" + branch
	why := fmt.Sprintf("%q is the CI gate: unless %s requires it, a pull request can merge with failing jobs", RequiredCheck, branch)
	c := f.Checks[branch]
	if slices.Contains(c.Rulesets, RequiredCheck) {
		return pass(check, fmt.Sprintf("a branch ruleset requires %q on %s", RequiredCheck, branch))
	}
	if !c.ProtectionDenied && slices.Contains(c.Protection, RequiredCheck) {
		return pass(check, fmt.Sprintf("branch protection requires %q on %s", RequiredCheck, branch))
	}
	if c.ProtectionDenied || c.RulesetsDenied {
		// Rulesets are readable with metadata; classic protection needs more.
		perm := permAdminRead
		if c.RulesetsDenied {
			perm = permMetadata + " and " + permAdminRead
		}
		return cannot(check, "the branch protection of "+branch, perm, why)
	}
	what := "branch protection requires other checks (" + strings.Join(c.Protection, ", ") + ")"
	if c.NotProtected {
		what = "neither a branch ruleset nor branch protection requires any status check"
	}
	return fail(check, fmt.Sprintf("%q is not required on %s: %s", RequiredCheck, branch, what), why,
		fmt.Sprintf("%s → New branch ruleset: target %s, rule Require status checks to pass with %q; or Settings → Branches → %s → Require status checks to pass before merging → %q; or `gh api -X PATCH repos/%s/branches/%s/protection/required_status_checks -f 'checks[][context]=%s'` on a protected branch",
			rulesetsURL(f.Repo), branch, RequiredCheck, branch, RequiredCheck, f.Repo, branch, RequiredCheck))
}

// codeowners: a CODEOWNERS file with at least one rule.
func codeowners(file File) Finding {
	const check = "codeowners"
	why := "GitHub requests the code owners' review on every pull request only when CODEOWNERS names them"
	if file.Denied {
		return cannot(check, file.Path, permContents, why)
	}
	if !file.Found {
		return fail(check, "there is no CODEOWNERS file (.github/CODEOWNERS, CODEOWNERS or docs/CODEOWNERS)", why,
			"add .github/CODEOWNERS with a rule such as `* @elixir-cloud-aai/tesk-maintainers` in a pull request to dev")
	}
	for line := range strings.SplitSeq(file.Content, "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
			return pass(check, file.Path+" names code owners")
		}
	}
	return fail(check, file.Path+" has no rule", why, "add a rule such as `* @elixir-cloud-aai/tesk-maintainers` to "+file.Path)
}

// shipyardPinned: every module the workflows call Dagger with is pinned to a commit.
func shipyardPinned(f TeskFacts) Finding {
	const check = "shipyard-pinned"
	why := "a workflow that calls Shipyard by branch or tag runs whatever that name points to when the job starts, with the job's credentials"
	if f.WorkflowsDenied {
		return cannot(check, ".github/workflows", permContents, why)
	}
	var problems []string
	refs := 0
	for _, file := range f.Workflows {
		if file.Denied {
			return cannot(check, file.Path, permContents, why)
		}
		w, err := parseWorkflow(file.Path, []byte(file.Content))
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, ref := range moduleRefs(file.Path, w) {
			refs++
			switch {
			case ref.Address == "":
				problems = append(problems, fmt.Sprintf("%s:%d: job %s: the module %s is not written in the workflow, so the review of the file does not cover it", ref.File, ref.Line, ref.Job, ref.Written))
			case !pinnedModule.MatchString(ref.Address):
				problems = append(problems, fmt.Sprintf("%s:%d: job %s: %s is not pinned to a full commit SHA", ref.File, ref.Line, ref.Job, ref.Address))
			}
		}
	}
	fix := "set SHIPYARD in each workflow's env to the module's address at the full commit you reviewed, e.g. github.com/elixir-cloud-aai/shipyard@<40 hex digits>, and call `dagger call -m \"$SHIPYARD\" …` (see examples/github-actions/tesk-core)"
	if len(problems) > 0 {
		return fail(check, strings.Join(problems, "; "), why, fix)
	}
	if refs == 0 {
		return fail(check, "no workflow under .github/workflows calls a Dagger module with -m", "CI and releases do not run through Shipyard", "install the wrappers of examples/github-actions/tesk-core; "+fix)
	}
	return pass(check, fmt.Sprintf("%d module reference(s) in %d workflow(s), each pinned to a commit", refs, len(f.Workflows)))
}

// isWorkflowFile reports whether a name under .github/workflows is a workflow.
func isWorkflowFile(name string) bool {
	ext := path.Ext(name)
	return ext == ".yml" || ext == ".yaml"
}
