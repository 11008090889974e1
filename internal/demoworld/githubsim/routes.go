package githubsim

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// routeGroups lists the endpoints, one group per resource file. Patterns use ServeMux
// syntax; {owner} and {repo} are resolved to call.repo (404 when unknown) before the
// handler runs, and handlers run under the server's lock.
var routeGroups = []func() []route{
	refRoutes,
	tagRoutes,
	commitRoutes,
	contentRoutes,
	actionRoutes,
	releaseRoutes,
	releaseWriteRoutes,
	gitDataRoutes,
	blobRoutes,
	repoCreateRoutes,
	pullRoutes,
	notesRoutes,
	repoRoutes,
	rulesetRoutes,
	environmentRoutes,
	protectionRoutes,
	actionsSettingsRoutes,
	attestationRoutes,
}

// page cuts one page out of n items by the request's per_page (default defaultPer, at
// most maxPer) and page parameters, returning the bounds and a Link header formatted as
// GitHub does (next, last, first, prev; empty when everything fits on one page).
func (c *call) page(n, defaultPer, maxPer int) (lo, hi int, link string) {
	q := c.r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per < 1 {
		per = defaultPer
	}
	per = min(per, maxPer)
	pg, err := strconv.Atoi(q.Get("page"))
	if err != nil || pg < 1 {
		pg = 1
	}
	last := max((n+per-1)/per, 1)
	lo = min((pg-1)*per, n)
	hi = min(lo+per, n)

	var rels []string
	add := func(p int, rel string) {
		rels = append(rels, "<"+c.pageURL(p)+`>; rel="`+rel+`"`)
	}
	if pg > 1 {
		add(min(pg-1, last), "prev")
	}
	if pg < last {
		add(pg+1, "next")
		add(last, "last")
	}
	if pg > 1 {
		add(1, "first")
	}
	return lo, hi, strings.Join(rels, ", ")
}

// pageURL is the request's URL with its page parameter replaced, keeping the other
// parameters in their order.
func (c *call) pageURL(p int) string {
	var kept []string
	for part := range strings.SplitSeq(c.r.URL.RawQuery, "&") {
		if part == "" || strings.HasPrefix(part, "page=") {
			continue
		}
		kept = append(kept, part)
	}
	kept = append(kept, "page="+strconv.Itoa(p))
	u := url.URL{Path: c.r.URL.Path, RawQuery: strings.Join(kept, "&")}
	return c.s.URL + u.String()
}

// repoURL is the API URL of a path under the call's repository, for "url" fields.
func (c *call) repoURL(format string, args ...any) string {
	return c.s.URL + "/repos/" + c.repo.FullName() + fmt.Sprintf(format, args...)
}

// htmlURL is the web URL of a path under the call's repository, for "html_url" fields.
func (c *call) htmlURL(format string, args ...any) string {
	return "https://github.com/" + c.repo.FullName() + fmt.Sprintf(format, args...)
}
