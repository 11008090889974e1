package versions

import (
	"fmt"
	"strings"

	"dagger/shipyard/internal/output"
	"dagger/shipyard/models/upstreams"
)

// Action is what a run did about the pull request.
type Action string

const (
	// ActionChecked: --check; the plan was printed and nothing written.
	ActionChecked Action = "checked"
	// ActionOpened: the branch was pushed and the pull request opened.
	ActionOpened Action = "opened"
	// ActionUpdated: the branch was rebuilt, or the title or body changed, or both.
	ActionUpdated Action = "updated"
	// ActionUnchanged: the open pull request was already current; nothing was written.
	ActionUnchanged Action = "unchanged"
	// ActionClosed: nothing is left to apply, so the open pull request was closed.
	ActionClosed Action = "closed"
	// ActionNone: nothing to apply and no pull request open; nothing was written.
	ActionNone Action = "none"
)

// PullRequest identifies the automation pull request.
type PullRequest struct {
	Number int    `json:"number"`
	URL    string `json:"url"`
	State  string `json:"state"`
}

// Requests counts what a run sent.
type Requests struct {
	// GitHub is every request to the GitHub API, conditional ones and retries included.
	GitHub int64 `json:"github"`
	// NotModified is how many of them GitHub answered 304 from the ETag cache; those do not
	// count against the rate limit.
	NotModified int64 `json:"github_not_modified"`
	// Writes is how many were writes (POST or PATCH), every attempt counted.
	Writes int `json:"github_writes"`
	// PyPI is the requests to PyPI's JSON API.
	PyPI int `json:"pypi"`
}

// Report is the outcome of a run; it is the function's output as text or JSON.
type Report struct {
	Repository string            `json:"repository"`
	Base       string            `json:"base"`
	BaseSHA    string            `json:"base_sha,omitempty"`
	Branch     string            `json:"branch"`
	Check      bool              `json:"check"`
	Plan       upstreams.Updates `json:"plan"`
	// Files are the paths the applied updates change.
	Files       []string         `json:"files"`
	Action      Action           `json:"action,omitempty"`
	PullRequest *PullRequest     `json:"pull_request,omitempty"`
	Commit      string           `json:"commit,omitempty"` // pushed by this run
	Discovery   []RepositoryScan `json:"discovery"`
	Requests    Requests         `json:"requests"`
	Notes       []string         `json:"notes,omitempty"`
}

// Format renders the report as "text" (the default) or "json".
func (r Report) Format(format string) (string, error) {
	if format == "" {
		format = output.Text
	}
	if err := output.Check(format); err != nil {
		return "", err
	}
	if format == output.JSON {
		return r.JSON()
	}
	return r.Text(), nil
}

// JSON is the report as indented JSON with a trailing newline. Empty lists are [] rather
// than null, so consumers need no special case.
func (r Report) JSON() (string, error) {
	if r.Plan.Changes == nil {
		r.Plan.Changes = []upstreams.Change{}
	}
	if r.Files == nil {
		r.Files = []string{}
	}
	if r.Discovery == nil {
		r.Discovery = []RepositoryScan{}
	}
	return output.Marshal(r)
}

// Text is the report for people: the plan (one line per change, current → new and why),
// the files, what happened to the pull request, and the requests it cost.
func (r Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Upstream model versions of %s (%s", r.Repository, r.Base)
	if r.BaseSHA != "" {
		fmt.Fprintf(&b, " at %s", short(r.BaseSHA))
	}
	b.WriteString("):\n")
	b.WriteString(r.Plan.Text())
	if len(r.Files) > 0 {
		fmt.Fprintf(&b, "Files changed by the applied updates: %s\n", strings.Join(r.Files, ", "))
	}
	pr := "(unknown)"
	if r.PullRequest != nil {
		pr = fmt.Sprintf("#%d: %s", r.PullRequest.Number, r.PullRequest.URL)
	}
	switch r.Action {
	case ActionChecked:
		b.WriteString("Check only: no file, branch or pull request was changed.\n")
	case ActionOpened:
		fmt.Fprintf(&b, "Opened pull request %s (%s at %s).\n", pr, r.Branch, short(r.Commit))
	case ActionUpdated:
		fmt.Fprintf(&b, "Updated pull request %s", pr)
		if r.Commit != "" {
			fmt.Fprintf(&b, " (%s rebuilt at %s)", r.Branch, short(r.Commit))
		}
		b.WriteString(".\n")
	case ActionUnchanged:
		fmt.Fprintf(&b, "Pull request %s is current; nothing was written.\n", pr)
	case ActionClosed:
		fmt.Fprintf(&b, "Closed pull request %s (nothing left to apply; %s kept).\n", pr, r.Branch)
	case ActionNone:
		b.WriteString("Nothing to apply and no pull request open; nothing was written.\n")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "Note: %s.\n", n)
	}
	fmt.Fprintf(&b, "Requests: GitHub %d (%d answered 304 from the ETag cache, %d writes), PyPI %d.\n",
		r.Requests.GitHub, r.Requests.NotModified, r.Requests.Writes, r.Requests.PyPI)
	return b.String()
}
