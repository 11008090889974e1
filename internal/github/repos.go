package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Permissions are what GitHub's answer to GET /repos/{owner}/{repo} tells of access there.
//
// Pull, Push and Admin are the repository's "permissions": the role of the user (or app)
// the token acts for, not what the token itself was granted. A fine-grained personal
// access token that may only read contents shows Push for a user who may write, so Push
// alone never shows that the token may write: see WhyNoContentsWrite.
type Permissions struct {
	// Known is false when GitHub sent no permissions (an unauthenticated read).
	Known bool
	Pull  bool
	Push  bool
	Admin bool
	// Private is true for a private (or internal) repository: a classic token's
	// public_repo scope writes public repositories only.
	Private bool
	// DefaultBranch is the repository's default branch.
	DefaultBranch string
	// Scopes are the OAuth scopes of a classic personal access token (or an OAuth app's
	// token), which GitHub lists in X-OAuth-Scopes on its answers to one. GitHub lists
	// none for a fine-grained token or a GitHub App's (Actions' GITHUB_TOKEN), whose
	// grants no header tells.
	Scopes []string
}

// ProbeTag is the tag ProbeContentsWrite asks GitHub to write release notes for: a name no
// release of Shipyard's makes. GitHub creates no tag and saves nothing for it.
const ProbeTag = "shipyard-write-check"

// WriteProbe is what GitHub answered when asked, on behalf of the token, for something
// only a token that may write the repository's contents may ask and that saves nothing.
type WriteProbe struct {
	// Asked is false when nothing was asked: the role or the scopes decided already.
	Asked bool
	// Allowed is true when GitHub answered.
	Allowed bool
	// Refusal is GitHub's refusal: the request, its status and message ("" when allowed).
	Refusal string
	// Needs is what GitHub said the request needs, from X-Accepted-GitHub-Permissions
	// (e.g. "contents=write"); "" when it did not say.
	Needs string
}

// ProbeContentsWrite asks GitHub whether the token may write owner/repo's contents, when
// neither the role nor the scopes in p decide it (see WhyNoContentsWrite): the token is
// fine-grained, a GitHub App's or Actions' GITHUB_TOKEN, whose grants GitHub lists
// nowhere. It asks GitHub to generate release notes for ProbeTag at the default branch:
// "Permissions required for fine-grained personal access tokens" (and for GitHub Apps)
// lists POST /repos/{owner}/{repo}/releases/generate-notes under "Contents" with access
// write (https://docs.github.com/en/rest/authentication/permissions-required-for-fine-grained-personal-access-tokens),
// and the operation's own description says "the generated release notes are not saved
// anywhere". GitHub's refusal (403, or 404 where it hides the repository from the token)
// is the answer, not an error; any other failure is.
func ProbeContentsWrite(ctx context.Context, c Calls, owner, repo string, p Permissions) (WriteProbe, error) {
	if !p.Known || !p.Pull || !p.Push || len(p.Scopes) > 0 {
		return WriteProbe{}, nil
	}
	if p.DefaultBranch == "" {
		return WriteProbe{}, fmt.Errorf("github: %s/%s has no default branch to ask whether the token may write it at", owner, repo)
	}
	_, err := c.GenerateNotes(ctx, owner, repo, NotesRequest{TagName: ProbeTag, TargetCommitish: p.DefaultBranch})
	if err == nil {
		return WriteProbe{Asked: true, Allowed: true}, nil
	}
	if !isPermissionRefusal(err) {
		return WriteProbe{}, fmt.Errorf("github: asking whether the token may write %s/%s: %w", owner, repo, err)
	}
	var ae *APIError
	errors.As(err, &ae)
	refusal := fmt.Sprintf("%s: %d %s", ae.Endpoint, ae.StatusCode, ae.Message)
	return WriteProbe{Asked: true, Refusal: refusal, Needs: ae.AcceptedPermissions}, nil
}

// isPermissionRefusal tells GitHub's refusal of a request the token may not make: 404,
// where GitHub hides what the token may not reach, or 403 "Resource not accessible by …"
// (or naming the permissions it accepts). A rate limit's 403 is none.
func isPermissionRefusal(err error) bool {
	switch StatusOf(err) {
	case http.StatusNotFound:
		return true
	case http.StatusForbidden:
		return AcceptedPermissionsOf(err) != "" || strings.HasPrefix(apiMessage(err), "Resource not accessible by ")
	}
	return false
}

// WhyNoContentsWrite says why the token may not write the repository's contents (push
// branches, write releases), "" when it may, from what GitHub answered: p, and probe when
// p does not decide. In order:
//
//   - the role: a user (or app) whose role does not allow pushing, whatever the token;
//   - a classic token's scopes, which GitHub lists: writing needs repo, or public_repo
//     for a public repository ("Scopes for OAuth apps",
//     https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps);
//   - any other token's grant, which no header lists: the probe's answer. Without one
//     (none asked) the token is refused: it was not shown to write.
//
// What no answer shows before writing (a branch protection or ruleset on the branch, a
// workflow file that needs the workflows permission) the write itself meets, and GitHub's
// refusal names it then.
func WhyNoContentsWrite(p Permissions, probe WriteProbe) string {
	if !p.Push {
		return "its user's role there does not allow pushing (GitHub reports no push permission)"
	}
	if len(p.Scopes) > 0 {
		if slices.Contains(p.Scopes, "repo") || (!p.Private && slices.Contains(p.Scopes, "public_repo")) {
			return ""
		}
		alt := ""
		if !p.Private {
			alt = " (or public_repo, the repository being public)"
		}
		return fmt.Sprintf("it is a classic token whose scopes (X-OAuth-Scopes: %s) lack the repo scope%s it writes with, although its user may push", strings.Join(p.Scopes, ", "), alt)
	}
	switch {
	case probe.Allowed:
		return ""
	case !probe.Asked:
		return "nothing showed that the token itself may write it: GitHub reports no scopes for it and it was not asked"
	}
	needs := "contents: write"
	if probe.Needs != "" {
		needs = readablePermissions(probe.Needs)
	}
	return fmt.Sprintf("its user may push, but GitHub refused the token a request that needs %s and saves nothing (%s)", needs, probe.Refusal)
}

// readablePermissions writes X-Accepted-GitHub-Permissions as a workflow's permissions
// read: "contents=write; a=read,b=write" is "contents: write, or a: read and b: write".
func readablePermissions(header string) string {
	var sets []string
	for set := range strings.SplitSeq(header, ";") {
		var pairs []string
		for pair := range strings.SplitSeq(set, ",") {
			if pair = strings.TrimSpace(pair); pair != "" {
				pairs = append(pairs, strings.Replace(pair, "=", ": ", 1))
			}
		}
		if len(pairs) > 0 {
			sets = append(sets, strings.Join(pairs, " and "))
		}
	}
	return strings.Join(sets, ", or ")
}
