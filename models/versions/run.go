package versions

import (
	"context"
	"fmt"
	"net/http"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/reponame"
	"dagger/shipyard/models/upstreams"
)

// Branch is the pull request's head branch. It is a constant, not an option, because the
// flow force-moves it on every rebuild: no caller can point that force at another branch.
const Branch = "automation/model-versions"

// Options say what a run works on.
type Options struct {
	// Repo is the Cloudcoil generator repository, "owner/name".
	Repo string
	// Base is the branch the updates are made against (default "main").
	Base string
	// Check prints the plan and sends no write at all.
	Check bool
	// PyPIURL is the index Cloudcoil is read from (default upstreams.PyPIURL).
	PyPIURL string
	// ReleasesPerPage is the page size of release listings (default and maximum 100).
	ReleasesPerPage int
	// MaxReleasePages bounds the pages read per upstream repository (default 10).
	MaxReleasePages int
}

// withDefaults fills defaults and checks the options, naming the flag to fix.
func (o Options) withDefaults() (Options, string, string, error) {
	if o.Base == "" {
		o.Base = "main"
	}
	if o.PyPIURL == "" {
		o.PyPIURL = upstreams.PyPIURL
	}
	if o.ReleasesPerPage <= 0 || o.ReleasesPerPage > 100 {
		o.ReleasesPerPage = 100
	}
	if o.MaxReleasePages <= 0 {
		o.MaxReleasePages = 10
	}
	repo, err := reponame.Parse(o.Repo)
	if err != nil {
		return o, "", "", fmt.Errorf("--repo %q: want the Cloudcoil generator repository as owner/name: %w", o.Repo, err)
	}
	if err := github.CheckBranch(o.Base); err != nil {
		return o, "", "", fmt.Errorf("--base: %w", err)
	}
	if o.Base == Branch {
		return o, "", "", fmt.Errorf("--base %q: the base cannot be the automation branch itself, which each run rebuilds by force", o.Base)
	}
	return o, repo.Owner, repo.Repo, nil
}

// Run performs one model-versions run through gh: read, discover, plan and, unless
// opts.Check, bring the branch and the pull request in line with the plan. A run that
// writes without a token (setup.HasToken) is refused (RequireToken) before anything is
// sent. The report says what was found and done; on error it holds what was known up to
// the failure, and the error is a *flow.Error naming the step that failed and what to do
// next.
func Run(ctx context.Context, setup Config, gh github.API, opts Options) (Report, error) {
	if _, err := flow.Run(ctx, flow.Runner{Flow: setup.Flow, Log: setup.Log}, setupSteps(opts.Check), &setup); err != nil {
		return Report{}, err
	}
	r := &modelVersionsState{gh: gh, pypi: setup.PyPI, opts: opts}
	r.report = Report{Repository: opts.Repo, Base: opts.Base, Branch: Branch, Check: opts.Check}
	start := statsOf(gh)
	runner := flow.Runner{Flow: setup.Flow, DryRun: opts.Check, Log: setup.Log}
	_, err := flow.Run(ctx, runner, steps(), r)
	if err == nil && opts.Check {
		r.report.Action = ActionChecked
	}
	end := statsOf(gh)
	r.report.Requests.GitHub = end.Requests - start.Requests
	r.report.Requests.NotModified = end.NotModified - start.NotModified
	if setup.ClientNotes != nil {
		r.report.Notes = append(setup.ClientNotes(), r.report.Notes...)
	}
	return r.report, err
}

// statsOf is what gh sent so far; nothing without a client, which the first step refuses.
func statsOf(gh github.API) github.Stats {
	if gh == nil {
		return github.Stats{}
	}
	return gh.Stats()
}

// modelVersionsState is what the steps of one model-versions run share: the clients and
// options, what the fetch steps read, what the decide steps made of it, and the report.
type modelVersionsState struct {
	gh          github.API
	pypi        *http.Client
	opts        Options
	owner, name string
	report      Report

	src   *sources
	found map[string][]upstreams.Version // final releases by integration
	// discoveryProblems are the integrations whose upstream could not be listed.
	discoveryProblems []upstreams.Problem
	pypiV             upstreams.PyPIInfo
	plan              upstreams.Updates
	specs             []commitSpec // the automation branch's commits on the base head

	pr     github.PullRequest // the open pull request, when open
	open   bool
	pushed bool
}

// note records something the reader of the report should know.
func (r *modelVersionsState) note(format string, args ...any) {
	r.report.Notes = append(r.report.Notes, fmt.Sprintf(format, args...))
}

// write performs one write through WriteThenVerify and counts every attempt, so the
// report's write count is what GitHub received.
func (r *modelVersionsState) write(ctx context.Context, write func(context.Context) error, readBack func(context.Context) (bool, error)) error {
	return r.gh.WriteThenVerify(ctx, func(ctx context.Context) error {
		r.report.Requests.Writes++
		return write(ctx)
	}, readBack)
}
