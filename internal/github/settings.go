package github

import (
	"errors"
	"net/http"
)

// The reads of this file are for checking a repository's settings (rulesets, environments,
// branch protection, secret and variable names). GitHub answers 403 to a token that lacks
// the permission a settings endpoint needs, and 404 where it hides the resource from it:
// callers tell "cannot read" from "not set" with NoAccess, never from a missing result.

// NoAccess reports whether err is GitHub's 403 or 404 answer: the token may not read what
// was asked (or, where GitHub hides it, cannot see it). Rate limits are not among them:
// the transport retries those, and gives up with a *RetryError.
func NoAccess(err error) bool {
	s := StatusOf(err)
	return s == http.StatusForbidden || s == http.StatusNotFound
}

// Ruleset is a repository ruleset as GitHub reports it to the token.
type Ruleset struct {
	ID   int64
	Name string
	// Target is branch, tag or push.
	Target string
	// Source is where it is defined: Repository, Organization or Enterprise.
	SourceType string
	// Enforcement is active, evaluate (reported only) or disabled.
	Enforcement string
	// Include and Exclude are the ref name patterns (e.g. refs/tags/v*, ~ALL).
	Include, Exclude []string
	// Rules are the rule types, e.g. creation, update, deletion.
	Rules []string
	// BypassKnown is false when GitHub left bypass_actors out: it shows them only to
	// tokens that may edit the ruleset.
	BypassKnown bool
	Bypass      []BypassActor
}

// BypassActor is one actor that may bypass a ruleset.
type BypassActor struct {
	// Type is RepositoryRole, Team, Integration, OrganizationAdmin, DeployKey, ….
	Type string
	// ID is the role, team or app id; for RepositoryRole, 5 is admin.
	ID int64
	// Mode is always or pull_request.
	Mode string
}

// ErrNotProtected is wrapped when a branch has no classic protection, or one without
// required status checks: GitHub's 404 says which in its message.
var ErrNotProtected = errors.New("no required status checks")

// Environment is a deployment environment with its protection.
type Environment struct {
	Name string
	// RequiredReviewers counts the reviewers of its required_reviewers rule (0: none).
	RequiredReviewers int
	// Policy is all (no deployment_branch_policy), protected (protected branches only) or
	// custom (the patterns of DeploymentPolicies).
	Policy string
}

// DeploymentPolicy is one name pattern an environment accepts: Type is branch or tag.
type DeploymentPolicy struct {
	Name string
	Type string
}

// Deployment policies of an environment.
const (
	PolicyAll       = "all"
	PolicyProtected = "protected"
	PolicyCustom    = "custom"
)
