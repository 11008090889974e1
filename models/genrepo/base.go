package genrepo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"dagger.io/dagger"
)

// BaseRefs are the names validate-models asks Dagger for, in order, to find --base in the
// source's own history. Dagger v0.21.8's lookup (util/gitutil/ls_remote.go,
// Remote.Lookup) tries a name as given, as refs/<name>, refs/heads/<name> and
// refs/tags/<name>, but never refs/remotes/<name>, git's rule for origin/main
// (gitrevisions(7)); and a pull request's checkout (actions/checkout) holds origin/main
// with no local main. So a short name is also tried as git's last two rules would:
// refs/remotes/<name>, then refs/remotes/<name>/HEAD. A full ref and HEAD are asked for as
// they are, and a full commit SHA in lower case, the only case the lookup takes as a SHA.
func BaseRefs(base string) []string {
	if isFullSHA(strings.ToLower(base)) {
		return []string{strings.ToLower(base)}
	}
	if base == "HEAD" || strings.HasPrefix(base, "refs/") {
		return []string{base}
	}
	return []string{base, "refs/remotes/" + base, "refs/remotes/" + base + "/HEAD"}
}

// baseNamesTried are the names BaseRefs amounts to in Dagger's lookup, for the error that
// says what was looked for: the name as given expanded as the lookup expands it, then the
// remote-tracking names.
func baseNamesTried(base string) []string {
	refs := BaseRefs(base)
	first := refs[0]
	var out []string
	for _, n := range []string{
		first,
		"refs/" + strings.TrimPrefix(first, "refs/"),
		"refs/heads/" + strings.TrimPrefix(first, "refs/heads/"),
		"refs/tags/" + strings.TrimPrefix(first, "refs/tags/"),
	} {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, n := range refs[1:] {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// baseAdvice is what to do about a base the history lacks: usually it was not fetched, or
// it names a local branch a pull request's checkout does not have.
func baseAdvice(base string) string {
	const sha = "or pass the base commit's full SHA"
	if !strings.Contains(base, "/") {
		return fmt.Sprintf("a pull request's checkout has no local branches: name the remote-tracking branch (--base origin/%s, which git fetch origin %s brings), %s", base, base, sha)
	}
	short, remoteTracking := strings.CutPrefix(base, "refs/remotes/")
	if !remoteTracking && !strings.HasPrefix(base, "refs/") {
		short, remoteTracking = strings.TrimPrefix(base, "remotes/"), true
	}
	if remote, branch, ok := strings.Cut(short, "/"); remoteTracking && ok && remote != "" && branch != "" {
		return fmt.Sprintf("fetch it first (git fetch %s %s; in GitHub Actions, actions/checkout with fetch-depth: 0), %s", remote, branch, sha)
	}
	return "fetch it first (in GitHub Actions, actions/checkout with fetch-depth: 0), " + sha
}

// refNotFound is the part of Dagger's lookup error (util/gitutil/ls_remote.go) that says a
// name is not in the history; any other error is the history's own and is not retried.
const refNotFound = "does not contain ref"

// resolveBase is the first of BaseRefs(base) the source's history has, as Dagger resolves
// it. The error names the flag, the names tried and what to do.
func resolveBase(ctx context.Context, repo *dagger.GitRepository, base string) (string, error) {
	for _, name := range BaseRefs(base) {
		_, err := repo.Ref(name).Commit(ctx)
		if err == nil {
			return name, nil
		}
		if !strings.Contains(err.Error(), refNotFound) {
			return "", fmt.Errorf("validate-models --base %s: reading the source's Git history: %w (does --source hold .git? In GitHub Actions: actions/checkout with fetch-depth: 0)", base, err)
		}
	}
	return "", fmt.Errorf("validate-models --base %s: the source's Git history has none of %s; %s",
		base, strings.Join(baseNamesTried(base), ", "), baseAdvice(base))
}

// isFullSHA is whether s is a full commit SHA, which Dagger's lookup takes as it is.
func isFullSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}
