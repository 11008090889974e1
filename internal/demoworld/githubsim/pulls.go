package githubsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

func pullRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/pulls", handle: listPulls},
		{method: http.MethodPost, pattern: "/repos/{owner}/{repo}/pulls", handle: createPull},
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/pulls/{number}", handle: getPull},
		{method: http.MethodPatch, pattern: "/repos/{owner}/{repo}/pulls/{number}", handle: updatePull},
	}
}

// PullRequest is a pull request between two branches of the same repository (forks are
// not modelled). Zero Number, State and times get defaults when added.
type PullRequest struct {
	Number int
	Title  string
	Body   string
	Head   string // branch name
	Base   string // branch name
	State  string // "open" or "closed"
	Draft  bool
	Merged bool

	CreatedAt, UpdatedAt, ClosedAt time.Time

	id      int64
	headSHA string // the head branch's commit when last seen, kept if the branch goes away
}

// AddPullRequest records a pull request (open unless State says otherwise) and returns its
// number.
func (r *Repo) AddPullRequest(pr PullRequest) int {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.addPullLocked(pr).Number
}

func (r *Repo) addPullLocked(pr PullRequest) *PullRequest {
	x := r.extras()
	if pr.Number == 0 {
		pr.Number = x.nextNumber
	}
	x.nextNumber = max(x.nextNumber, pr.Number+1)
	if pr.State == "" {
		pr.State = "open"
	}
	pr.id = r.s.newID()
	if pr.CreatedAt.IsZero() {
		pr.CreatedAt = r.s.stamp()
	}
	if pr.UpdatedAt.IsZero() {
		pr.UpdatedAt = pr.CreatedAt
	}
	if pr.State == "closed" && pr.ClosedAt.IsZero() {
		pr.ClosedAt = pr.UpdatedAt
	}
	pr.headSHA = r.branches[pr.Head]
	x.pulls = append(x.pulls, &pr)
	return &pr
}

// PullRequests returns copies of every pull request, in the order created.
func (r *Repo) PullRequests() []PullRequest {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	var out []PullRequest
	for _, pr := range r.extras().pulls {
		out = append(out, *pr)
	}
	return out
}

func (r *Repo) pullByNumber(n int) *PullRequest {
	for _, pr := range r.extras().pulls {
		if pr.Number == n {
			return pr
		}
	}
	return nil
}

// openPullFor returns the open pull request from head into base, if any: GitHub allows one.
func (r *Repo) openPullFor(head, base string) *PullRequest {
	for _, pr := range r.extras().pulls {
		if pr.State == "open" && pr.Head == head && pr.Base == base {
			return pr
		}
	}
	return nil
}

// customError is an entry of a 422's "errors" array that carries a message, as GitHub's
// "custom" validation errors do.
type customError struct {
	Resource string `json:"resource"`
	Code     string `json:"code"`
	Field    string `json:"field,omitempty"`
	Message  string `json:"message,omitempty"`
}

func pullValidationFailed(docs string, errs ...customError) reply {
	return reply{status: http.StatusUnprocessableEntity, body: map[string]any{
		"message":           "Validation Failed",
		"errors":            errs,
		"documentation_url": docsBase + docs,
		"status":            "422",
	}}
}

func (c *call) branchJSON(label, ref, sha string) map[string]any {
	return map[string]any{
		"label": label,
		"ref":   ref,
		"sha":   sha,
		"user":  c.s.user(c.repo.owner, "Organization"),
		"repo":  c.s.repository(c.repo),
	}
}

func (c *call) pullJSON(pr *PullRequest) map[string]any {
	headSHA := pr.headSHA
	if sha, ok := c.repo.branches[pr.Head]; ok && pr.State == "open" {
		headSHA = sha // an open pull request follows its branch
	}
	optTime := func(t time.Time) any {
		if t.IsZero() {
			return nil
		}
		return timestamp(t)
	}
	var mergedAt any
	if pr.Merged {
		mergedAt = optTime(pr.ClosedAt)
	}
	self := c.repoURL("/pulls/%d", pr.Number)
	link := func(href string) map[string]string { return map[string]string{"href": href} }
	return map[string]any{
		"url":                 self,
		"id":                  pr.id,
		"node_id":             nodeID("PR", strconv.FormatInt(pr.id, 10)),
		"html_url":            c.htmlURL("/pull/%d", pr.Number),
		"diff_url":            c.htmlURL("/pull/%d.diff", pr.Number),
		"patch_url":           c.htmlURL("/pull/%d.patch", pr.Number),
		"issue_url":           c.repoURL("/issues/%d", pr.Number),
		"number":              pr.Number,
		"state":               pr.State,
		"locked":              false,
		"title":               pr.Title,
		"user":                c.s.user("automation-bot", "User"),
		"body":                nullable(pr.Body),
		"created_at":          timestamp(pr.CreatedAt),
		"updated_at":          timestamp(pr.UpdatedAt),
		"closed_at":           optTime(pr.ClosedAt),
		"merged_at":           mergedAt,
		"merged":              pr.Merged,
		"draft":               pr.Draft,
		"head":                c.branchJSON(c.repo.owner+":"+pr.Head, pr.Head, headSHA),
		"base":                c.branchJSON(c.repo.owner+":"+pr.Base, pr.Base, c.repo.branches[pr.Base]),
		"author_association":  "MEMBER",
		"commits_url":         self + "/commits",
		"review_comments_url": self + "/comments",
		"statuses_url":        c.repoURL("/statuses/%s", headSHA),
		"comments_url":        c.repoURL("/issues/%d/comments", pr.Number),
		"review_comment_url":  c.repoURL("/pulls/comments{/number}"),
		"assignee":            nil,
		"milestone":           nil,
		"labels":              []any{},
		"merge_commit_sha":    nil,
		"auto_merge":          nil,
		"_links": map[string]any{
			"self":            link(self),
			"html":            link(c.htmlURL("/pull/%d", pr.Number)),
			"issue":           link(c.repoURL("/issues/%d", pr.Number)),
			"comments":        link(c.repoURL("/issues/%d/comments", pr.Number)),
			"review_comments": link(self + "/comments"),
			"review_comment":  link(c.repoURL("/pulls/comments{/number}")),
			"commits":         link(self + "/commits"),
			"statuses":        link(c.repoURL("/statuses/%s", headSHA)),
		},
	}
}

// fullPullJSON is the pull-request shape of a single pull request (get, create, update):
// the list's shape plus GitHub's counts of its commits and changes, against the base
// branch's head.
func (c *call) fullPullJSON(pr *PullRequest) map[string]any {
	body := c.pullJSON(pr)
	head := body["head"].(map[string]any)["sha"].(string)
	base := c.repo.branches[pr.Base]
	commits, additions, deletions, changed := 0, 0, 0, 0
	if _, ok := c.repo.commits[head]; ok && base != "" {
		fromBase := c.repo.ancestors(base)
		for sha := range c.repo.ancestors(head) {
			if !fromBase[sha] {
				commits++
			}
		}
		for _, f := range c.repo.changedFiles(base, head) {
			additions += f["additions"].(int)
			deletions += f["deletions"].(int)
			changed++
		}
	}
	var mergedBy any
	if pr.Merged {
		mergedBy = c.s.user("automation-bot", "User")
	}
	body["commits"] = commits
	body["additions"] = additions
	body["deletions"] = deletions
	body["changed_files"] = changed
	body["comments"] = 0
	body["review_comments"] = 0
	body["maintainer_can_modify"] = false
	// GitHub computes mergeability in the background; until then it answers null.
	body["mergeable"] = nil
	body["mergeable_state"] = "unknown"
	body["merged_by"] = mergedBy
	return body
}

// listPulls answers GET /repos/{owner}/{repo}/pulls with the state (open, closed, all;
// default open), head ("owner:branch") and base filters, newest first, paginated (default
// 30, at most 100). As GitHub does, a head filter without the "owner:" part is ignored and
// every pull request is listed, so a client that forgets the owner fails in tests as it
// would in production.
func listPulls(c *call) reply {
	const docs = "/pulls/pulls#list-pull-requests"
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	if !slices.Contains([]string{"open", "closed", "all"}, state) {
		return validationFailed(docs, fieldError{Resource: "PullRequest", Code: "invalid", Field: "state"})
	}
	headOwner, headBranch, byHead := strings.Cut(q.Get("head"), ":")
	base := q.Get("base")
	var out []*PullRequest
	for _, pr := range c.repo.extras().pulls {
		switch {
		case state != "all" && pr.State != state:
		case byHead && (!strings.EqualFold(headOwner, c.repo.owner) || pr.Head != headBranch):
		case base != "" && pr.Base != base:
		default:
			out = append(out, pr)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number > out[j].Number })
	lo, hi, link := c.page(len(out), 30, 100)
	body := make([]map[string]any, 0, hi-lo)
	for _, pr := range out[lo:hi] {
		body = append(body, c.pullJSON(pr))
	}
	rep := okJSON(body)
	if link != "" {
		rep.header = http.Header{"Link": {link}}
	}
	return rep
}

func getPull(c *call) reply {
	n, err := strconv.Atoi(c.r.PathValue("number"))
	pr := c.repo.pullByNumber(n)
	if err != nil || pr == nil {
		return notFound("/pulls/pulls#get-a-pull-request")
	}
	return okJSON(c.fullPullJSON(pr))
}

// createPull answers POST /repos/{owner}/{repo}/pulls. Like GitHub it refuses a second open
// pull request for the same head and base ("A pull request already exists for
// owner:branch."), a head or base branch that does not exist, and a head with no commits
// beyond the base.
func createPull(c *call) reply {
	const docs = "/pulls/pulls#create-a-pull-request"
	if !c.mayWrite() {
		return c.writeRefused(docs, "")
	}
	var in struct {
		Title string `json:"title"`
		Head  string `json:"head"`
		Base  string `json:"base"`
		Body  string `json:"body"`
		Draft bool   `json:"draft"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON", docs)
	}
	for field, v := range map[string]string{"title": in.Title, "head": in.Head, "base": in.Base} {
		if v == "" {
			return pullValidationFailed(docs, customError{Resource: "PullRequest", Code: "missing_field", Field: field})
		}
	}
	head := in.Head
	if owner, branch, ok := strings.Cut(in.Head, ":"); ok {
		if !strings.EqualFold(owner, c.repo.owner) {
			return pullValidationFailed(docs, customError{Resource: "PullRequest", Code: "invalid", Field: "head"})
		}
		head = branch
	}
	headSHA, okHead := c.repo.branches[head]
	if !okHead {
		return pullValidationFailed(docs, customError{Resource: "PullRequest", Code: "invalid", Field: "head"})
	}
	baseSHA, okBase := c.repo.branches[in.Base]
	if !okBase {
		return pullValidationFailed(docs, customError{Resource: "PullRequest", Code: "invalid", Field: "base"})
	}
	if c.repo.openPullFor(head, in.Base) != nil {
		return pullValidationFailed(docs, customError{Resource: "PullRequest", Code: "custom",
			Message: fmt.Sprintf("A pull request already exists for %s:%s.", c.repo.owner, head)})
	}
	if c.repo.ancestors(baseSHA)[headSHA] {
		return pullValidationFailed(docs, customError{Resource: "PullRequest", Code: "custom",
			Message: fmt.Sprintf("No commits between %s and %s", in.Base, head)})
	}
	pr := c.repo.addPullLocked(PullRequest{Title: in.Title, Body: in.Body, Head: head, Base: in.Base, Draft: in.Draft})
	rep := reply{status: http.StatusCreated, body: c.fullPullJSON(pr)}
	rep.header = http.Header{"Location": {c.repoURL("/pulls/%d", pr.Number)}}
	return rep
}

// updatePull answers PATCH /repos/{owner}/{repo}/pulls/{number}: title, body, state (open,
// closed) and base. updated_at moves only when something changed.
func updatePull(c *call) reply {
	const docs = "/pulls/pulls#update-a-pull-request"
	if !c.mayWrite() {
		return c.writeRefused(docs, "")
	}
	n, err := strconv.Atoi(c.r.PathValue("number"))
	pr := c.repo.pullByNumber(n)
	if err != nil || pr == nil {
		return notFound(docs)
	}
	var in struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
		State *string `json:"state"`
		Base  *string `json:"base"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON", docs)
	}
	next := *pr
	if in.Title != nil {
		if *in.Title == "" {
			return pullValidationFailed(docs, customError{Resource: "PullRequest", Code: "missing_field", Field: "title"})
		}
		next.Title = *in.Title
	}
	if in.Body != nil {
		next.Body = *in.Body
	}
	if in.Base != nil {
		if _, ok := c.repo.branches[*in.Base]; !ok {
			return pullValidationFailed(docs, customError{Resource: "PullRequest", Code: "invalid", Field: "base"})
		}
		next.Base = *in.Base
	}
	if in.State != nil {
		switch *in.State {
		case "open", "closed":
		default:
			return pullValidationFailed(docs, customError{Resource: "PullRequest", Code: "invalid", Field: "state"})
		}
		if pr.Merged && *in.State == "open" {
			return pullValidationFailed(docs, customError{Resource: "PullRequest", Code: "custom", Message: "Cannot reopen a merged pull request"})
		}
		if *in.State == "open" && pr.State == "closed" {
			if other := c.repo.openPullFor(pr.Head, next.Base); other != nil {
				return pullValidationFailed(docs, customError{Resource: "PullRequest", Code: "custom",
					Message: fmt.Sprintf("A pull request already exists for %s:%s.", c.repo.owner, pr.Head)})
			}
		}
		next.State = *in.State
	}
	if next.Title != pr.Title || next.Body != pr.Body || next.Base != pr.Base || next.State != pr.State {
		next.UpdatedAt = c.s.stamp()
		switch {
		case next.State == "closed" && pr.State == "open":
			next.ClosedAt = next.UpdatedAt
			next.headSHA = c.repo.branches[pr.Head] // a closed pull request keeps its last head
		case next.State == "open":
			next.ClosedAt = time.Time{}
		}
		*pr = next
	}
	return okJSON(c.fullPullJSON(pr))
}
