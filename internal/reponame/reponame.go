// Package reponame reads GitHub repository names, "owner/name": the one parser every flag,
// config file and flow of Shipyard uses, so a name accepted in one place is accepted in
// all of them.
package reponame

import (
	"fmt"
	"strings"
)

// Name is a GitHub repository: its owner (a user or organisation) and its name.
type Name struct {
	Owner, Repo string
}

// String returns "owner/name".
func (n Name) String() string { return n.Owner + "/" + n.Repo }

// GitHub's limits: an owner has at most 39 characters, a repository name at most 100.
const (
	maxOwner = 39
	maxRepo  = 100
)

// Parse reads "owner/name" as GitHub spells repositories: the owner is ASCII letters,
// digits and inner hyphens; the name is ASCII letters, digits, ".", "_" and "-", and not
// "." or "..". Nothing else is accepted: no URL, no ".git" clone suffix handling, no
// surrounding space, and no third segment. The error says which part is wrong.
func Parse(s string) (Name, error) {
	owner, repo, ok := strings.Cut(s, "/")
	var reason string
	switch {
	case !ok:
		reason = "no \"/\" between owner and name"
	case strings.Contains(repo, "/"):
		reason = "more than one \"/\""
	case owner == "":
		reason = "the owner is empty"
	case len(owner) > maxOwner:
		reason = fmt.Sprintf("the owner is longer than %d characters", maxOwner)
	case !validOwner(owner):
		reason = "the owner may hold only ASCII letters, digits and hyphens, not first or last"
	case repo == "":
		reason = "the name is empty"
	case len(repo) > maxRepo:
		reason = fmt.Sprintf("the name is longer than %d characters", maxRepo)
	case repo == "." || repo == "..":
		reason = "the name cannot be \".\" or \"..\""
	case !validRepo(repo):
		reason = "the name may hold only ASCII letters, digits, \".\", \"_\" and \"-\""
	default:
		return Name{Owner: owner, Repo: repo}, nil
	}
	return Name{}, fmt.Errorf("repository %q is not owner/name: %s", abbreviate(s), reason)
}

func validOwner(s string) bool {
	if s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

func validRepo(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// abbreviate keeps an error short when the input is long.
func abbreviate(s string) string {
	const limit = 64
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}
