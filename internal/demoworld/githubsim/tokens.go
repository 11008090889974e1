package githubsim

import (
	"net/http"
	"slices"
	"strings"
)

// GitHub keeps two things apart that a write needs together: the role of the user a token
// acts for (what a repository's "permissions" report, whatever the token was granted) and
// the token's own grants. A fine-grained personal access token or a GitHub App's token
// (Actions' GITHUB_TOKEN is one) holds fine-grained permissions such as contents: write,
// which GitHub lists nowhere the token can read; a classic personal access token holds OAuth
// scopes, which GitHub lists in X-OAuth-Scopes on every answer to it ("Scopes for OAuth
// apps": https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps).

// roles are the repository roles, weakest first, as "permissions" names them.
var roles = []string{"read", "triage", "write", "maintain", "admin"}

// role is the role of the token's user on every repository.
func (t *Token) role() string {
	switch {
	case t.Role != "":
		return t.Role
	case t.Scopes != nil || t.PushAccess:
		return "write"
	}
	return "read"
}

// rolePermissions is a repository's "permissions" for a role: each flag holds for the role
// named and every stronger one.
func rolePermissions(role string) map[string]bool {
	at := slices.Index(roles, role)
	return map[string]bool{
		"pull": at >= 0, "triage": at >= 1, "push": at >= 2, "maintain": at >= 3, "admin": at >= 4,
	}
}

// scoped reports whether a classic token holds scope.
func (t *Token) scoped(scope string) bool { return slices.Contains(t.Scopes, scope) }

// mayWrite reports whether the call's token may write the call's repository: its user's
// role allows pushing, and the token itself may write — a classic token through the repo
// scope (public_repo, for a public repository: every simulated repository is public), any
// other through contents: write (PushAccess).
func (c *call) mayWrite() bool {
	t := c.token
	if !rolePermissions(t.role())["push"] {
		return false
	}
	if t.Scopes != nil {
		return t.scoped("repo") || t.scoped("public_repo")
	}
	return t.PushAccess
}

// writeRefused is GitHub's answer to a write the token may not make. A fine-grained or App
// token gets 403 "Resource not accessible by integration" with X-Accepted-GitHub-Permissions
// naming what the endpoint accepts (accepted, e.g. "contents=write"; "" sends none: an
// endpoint whose permission the simulator does not model), as GitHub's "Troubleshooting the
// REST API" (insufficient permission errors) describes. A classic token without the scope
// gets 404 Not Found, as GitHub hides from a token what it may not reach (a release created
// with a token lacking repo answers 404).
func (c *call) writeRefused(docs, accepted string) reply {
	if c.token.Scopes != nil {
		return notFound(docs)
	}
	rep := noPushAccess(docs)
	if accepted != "" {
		rep.header = http.Header{acceptedPermissionsHeader: {accepted}}
	}
	return rep
}

// The headers through which GitHub tells a token what it holds and what an endpoint needs.
const (
	oauthScopesHeader         = "X-OAuth-Scopes"
	acceptedPermissionsHeader = "X-Accepted-GitHub-Permissions"
)

// setTokenHeaders adds what GitHub tells a classic token on every answer: its scopes.
func setTokenHeaders(h http.Header, t *Token) {
	if t != nil && t.Scopes != nil {
		h.Set(oauthScopesHeader, strings.Join(t.Scopes, ", "))
	}
}
