package versions

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/reponame"
	"dagger/shipyard/models/upstreams"
)

// Branch is the pull request's head branch. It is a constant, not an option, because the
// flow force-moves it on every rebuild: no caller can point that force at another branch.
const Branch = "automation/model-versions"

// DefaultPyPIURL is the PyPI index whose JSON API Cloudcoil's versions are read from.
const DefaultPyPIURL = "https://pypi.org/"

// Options say what a run works on.
type Options struct {
	// Repo is the Cloudcoil generator repository, "owner/name".
	Repo string
	// Base is the branch the updates are made against (default "main").
	Base string
	// Check prints the plan and sends no write at all.
	Check bool
	// PyPIURL is the index Cloudcoil is read from (default DefaultPyPIURL).
	PyPIURL string
	// ReleasesPerPage is the page size of release listings (default and maximum 100).
	ReleasesPerPage int
	// MaxReleasePages bounds the pages read per upstream repository (default 10).
	MaxReleasePages int
}

// Deps are the clients a run talks through.
type Deps struct {
	// GitHub reads the generator and upstream repositories and writes the branch and the
	// pull request; its ETag cache is what makes an unchanged re-run free.
	GitHub *github.Client
	// PyPI fetches Cloudcoil's project JSON (nil: http.DefaultClient).
	PyPI *http.Client
}

var (
	branchName = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)
)

// withDefaults fills defaults and checks the options, naming the flag to fix.
func (o Options) withDefaults() (Options, string, string, error) {
	if o.Base == "" {
		o.Base = "main"
	}
	if o.PyPIURL == "" {
		o.PyPIURL = DefaultPyPIURL
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
	if !branchName.MatchString(o.Base) || strings.Contains(o.Base, "..") {
		return o, "", "", fmt.Errorf("--base %q: not a branch name", o.Base)
	}
	if o.Base == Branch {
		return o, "", "", fmt.Errorf("--base %q: the base cannot be the automation branch itself, which each run rebuilds by force", o.Base)
	}
	return o, repo.Owner, repo.Repo, nil
}

// Run performs one model-versions run: read, discover, plan and, unless opts.Check, bring
// the branch and the pull request in line with the plan. The report says what was found
// and done; on error it holds what was known up to the failure.
func Run(ctx context.Context, deps Deps, opts Options) (Report, error) {
	if deps.GitHub == nil {
		return Report{}, errors.New("model-versions: no GitHub client")
	}
	opts, owner, name, err := opts.withDefaults()
	if err != nil {
		return Report{}, err
	}
	r := &run{gh: deps.GitHub, pypi: deps.PyPI, opts: opts, owner: owner, name: name}
	r.report = Report{Repository: opts.Repo, Base: opts.Base, Branch: Branch, Check: opts.Check}
	start := deps.GitHub.Stats()
	err = r.do(ctx)
	end := deps.GitHub.Stats()
	r.report.Requests.GitHub = end.Requests - start.Requests
	r.report.Requests.NotModified = end.NotModified - start.NotModified
	return r.report, err
}

// run is the state of one run shared by its steps.
type run struct {
	gh          *github.Client
	pypi        *http.Client
	opts        Options
	owner, name string
	report      Report
}

func (r *run) do(ctx context.Context) error {
	src, err := r.readSources(ctx)
	if err != nil {
		return err
	}
	r.report.BaseSHA = src.head

	found, err := r.discover(ctx, src.file)
	if err != nil {
		return err
	}
	info, err := upstreams.FetchPyPI(ctx, r.opts.PyPIURL, src.file.Cloudcoil.Package, r.pypi)
	r.report.Requests.PyPI++
	if err != nil {
		return fmt.Errorf("%s: cloudcoil.package %s: %w (check --pypi-url)", upstreams.FilePath, src.file.Cloudcoil.Package, err)
	}
	plan := upstreams.Plan(src.file, found, info)
	r.report.Plan = plan

	if err := r.readCookiecutters(ctx, src, plan); err != nil {
		return err
	}
	if err := r.readRequirements(ctx, src, plan); err != nil {
		return err
	}
	specs, notes, err := planCommits(src, plan)
	if err != nil {
		return err
	}
	r.report.Notes = append(r.report.Notes, notes...)
	if len(specs) > 0 {
		for _, c := range specs[len(specs)-1].Files {
			r.report.Files = append(r.report.Files, c.Path)
		}
	}
	if r.opts.Check {
		r.report.Action = ActionChecked
		return nil
	}

	pr, open, err := r.gh.OpenPullRequest(ctx, r.owner, r.name, Branch, r.opts.Base)
	if err != nil {
		return err
	}
	if open {
		r.report.PullRequest = pullRef(pr)
	}
	// A pull request is open whenever something is pending (applied or for review), and
	// closed only when nothing is.
	if len(specs) == 0 {
		if !open {
			r.report.Action = ActionNone
			return nil
		}
		return r.closePull(ctx, pr, plan)
	}

	pushed, err := r.syncBranch(ctx, src.head, specs)
	if err != nil {
		return err
	}
	return r.syncPull(ctx, pr, open, pushed, plan)
}

// note records something the reader of the report should know.
func (r *run) note(format string, args ...any) {
	r.report.Notes = append(r.report.Notes, fmt.Sprintf(format, args...))
}

// write performs one write through WriteThenVerify and counts every attempt, so the
// report's write count is what GitHub received.
func (r *run) write(ctx context.Context, write func(context.Context) error, readBack func(context.Context) (bool, error)) error {
	return r.gh.WriteThenVerify(ctx, func(ctx context.Context) error {
		r.report.Requests.Writes++
		return write(ctx)
	}, readBack)
}
