package githubsim

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// GitHub's REST API description says nothing of the headers that tell a token what it
// holds and what an endpoint needs, so the contract holds them to what GitHub documents
// elsewhere, and to the description where it can:
//
//   - X-OAuth-Scopes, sent to a classic token: its scopes, comma-separated, each one GitHub
//     lists in "Scopes for OAuth apps" (docs.github.com/en/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps).
//   - X-Accepted-GitHub-Permissions, sent to a fine-grained or App token: the sets of
//     permissions that would do, separated by ";", each "name=level" pairs separated by ","
//     (GitHub changelog 2023-08-10, "X-Accepted-GitHub-Permissions header for fine-grained
//     permission actors"), each name and level a property and value of the description's
//     own schema of a fine-grained token's permissions, app-permissions.

// oauthScopes are the scopes "Scopes for OAuth apps" lists.
var oauthScopes = []string{
	"repo", "repo:status", "repo_deployment", "public_repo", "repo:invite", "security_events",
	"admin:repo_hook", "write:repo_hook", "read:repo_hook",
	"admin:org", "write:org", "read:org",
	"admin:public_key", "write:public_key", "read:public_key",
	"admin:org_hook", "gist", "notifications",
	"user", "read:user", "user:email", "user:follow",
	"project", "read:project", "delete_repo",
	"write:packages", "read:packages", "delete:packages",
	"admin:gpg_key", "write:gpg_key", "read:gpg_key",
	"codespace", "workflow", "read:audit_log",
	"admin:enterprise", "manage_runners:enterprise", "manage_billing:enterprise", "read:enterprise",
	"write:discussion", "read:discussion",
	"admin:ssh_signing_key", "write:ssh_signing_key", "read:ssh_signing_key",
}

// checkTokenHeaders says what is wrong with an answer's token headers, nil when nothing.
func (c *contract) checkTokenHeaders(header http.Header) []string {
	var wrong []string
	if vs, ok := header[http.CanonicalHeaderKey(oauthScopesHeader)]; ok {
		for _, scope := range strings.Split(strings.Join(vs, ","), ",") {
			// A classic token without scopes is sent the header empty.
			if scope = strings.TrimSpace(scope); scope != "" && !slices.Contains(oauthScopes, scope) {
				wrong = append(wrong, fmt.Sprintf("%s: %q is no scope GitHub documents", oauthScopesHeader, scope))
			}
		}
	}
	vs, ok := header[http.CanonicalHeaderKey(acceptedPermissionsHeader)]
	if !ok {
		return wrong
	}
	perms, err := c.desc.schema("app-permissions")
	if err != nil {
		return append(wrong, err.Error())
	}
	for _, set := range strings.Split(strings.Join(vs, ";"), ";") {
		for _, pair := range strings.Split(set, ",") {
			name, level, found := strings.Cut(strings.TrimSpace(pair), "=")
			prop := perms.Properties[name]
			switch {
			case !found:
				wrong = append(wrong, fmt.Sprintf("%s: %q is not name=level", acceptedPermissionsHeader, pair))
			case prop == nil || prop.Value == nil:
				wrong = append(wrong, fmt.Sprintf("%s: %q is no permission of app-permissions", acceptedPermissionsHeader, name))
			case !slices.Contains(prop.Value.Enum, any(level)):
				wrong = append(wrong, fmt.Sprintf("%s: %q is no level of %s (app-permissions: %v)", acceptedPermissionsHeader, level, name, prop.Value.Enum))
			}
		}
	}
	return wrong
}
