package githubsim

import (
	"net/http"
	"strings"
)

func refRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/git/ref/{ref...}", handle: getRef},
	}
}

// gitObject is the {type, sha, url} a ref or tag object points to.
type gitObject struct {
	Type string `json:"type"`
	SHA  string `json:"sha"`
	URL  string `json:"url"`
}

// objectOf describes a git object of the call's repository by its SHA.
func (c *call) objectOf(sha string) gitObject {
	if _, ok := c.repo.tagObjects[sha]; ok {
		return gitObject{Type: "tag", SHA: sha, URL: c.repoURL("/git/tags/%s", sha)}
	}
	return gitObject{Type: "commit", SHA: sha, URL: c.repoURL("/git/commits/%s", sha)}
}

// getRef answers GET /repos/{owner}/{repo}/git/ref/{ref}: one exact ref, "heads/<b>" or
// "tags/<t>". A tag ref points at a tag object (type "tag") when the tag is annotated and
// at the commit itself (type "commit") when it is lightweight.
func getRef(c *call) reply {
	ref := c.r.PathValue("ref")
	var sha string
	var found bool
	if b, ok := strings.CutPrefix(ref, "heads/"); ok {
		sha, found = c.repo.branches[b]
	} else if t, ok := strings.CutPrefix(ref, "tags/"); ok {
		sha, found = c.repo.tags[t]
	}
	if !found {
		return notFound("/git/refs#get-a-reference")
	}
	return okJSON(map[string]any{
		"ref":     "refs/" + ref,
		"node_id": nodeID("REF", ref),
		"url":     c.repoURL("/git/refs/%s", ref),
		"object":  c.objectOf(sha),
	})
}
