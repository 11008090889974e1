package main

import (
	"context"

	"dagger/shipyard/internal/output"
	"dagger/shipyard/models/versions"
)

// ModelVersions keeps Cloudcoil's upstream model versions current. Run it on the Cloudcoil
// generator repository: dagger call --repo cloudcoil/cloudcoil --github-token
// env://CI_GITHUB_TOKEN model-versions.
//
// It reads models/upstreams.json on the base branch, discovers final GitHub releases of
// each upstream (drafts, pre-releases and tags outside the product's scheme ignored) and
// Cloudcoil's versions on PyPI, and plans: patches of tracked lines are applied to
// upstreams.json and each models/<name>/cookiecutter.yaml together; new upstream minors
// and majors are proposed for review as each integration's policy says (newest-minor
// replaces its line, maintained-lines adds one and retires the oldest) and a new Cloudcoil
// minor is a migration item. An integration that cannot be updated is skipped and named
// with its file and fix; the others go on. One pull request from automation/model-versions holds
// every applied update; later runs rebuild that branch on the base branch's head and
// update the pull request, write nothing when it is current, and close it once nothing is
// left to apply. With --check it prints the plan and changes nothing.
//
// The token must be one whose pushes trigger workflows, so that CI runs on the pull
// request: the CI_GITHUB_TOKEN secret (contents, pull-request and workflow write access to
// the generator repository, read access to the upstreams), never the workflow's default
// GITHUB_TOKEN, whose pushes GitHub does not turn into workflow runs. --check can run
// without a token (anonymous GitHub limits apply).
//
// With a token, GitHub answers are cached with their ETags in a cache volume, so an
// unchanged re-run on the same engine costs only 304s, which GitHub does not count against
// the rate limit.
// +cache="never"
// +trust="publishing(github-token)"
// +cacheReason="reads GitHub and PyPI, writes a branch and a pull request"
func (m *Shipyard) ModelVersions(
	ctx context.Context,
	// Print the whole plan (per integration: current → new, patch or proposed; every
	// skipped integration with its fix) and change nothing: no file, branch or pull request.
	// +optional
	check bool,
	// Output format: text or json.
	// +optional
	// +default="text"
	format string,
	// The branch the updates are made against.
	// +default="main"
	base string,
	// The PyPI index Cloudcoil's releases are read from.
	// +default="https://pypi.org"
	pypiUrl string,
) (string, error) {
	return call(m.rehearsing(check), func(m *Shipyard) (_ string, err error) {
		if err := output.Check(format); err != nil {
			return "", err
		}
		gh, err := m.githubClient(ctx)
		if err != nil {
			return "", err
		}
		setup := versions.Config{Flow: m.fn, HasToken: m.GithubToken != nil, Log: logToStderr, ClientNotes: gh.Notes}
		if m.Demo {
			if pypiUrl, err = m.demoPyPI(ctx); err != nil {
				return "", err
			}
		}
		// Run refuses a writing run without a token (versions.RequireToken) before it sends a
		// request.
		report, err := versions.Run(ctx, setup, gh, versions.Options{Repo: m.Repo, Base: base, Check: check, PyPIURL: pypiUrl})
		if err != nil {
			return "", err // a *flow.Error: "model-versions: <step>: …", with what to do next
		}
		return report.Format(format)
	})
}

// ProposeUpstreams proposes the first models/upstreams.json of a Cloudcoil repository
// (--source) that has none: model-versions needs it. It is read from each
// models/<name>/cookiecutter.yaml (the release lines in versions, the schema URLs of one
// version in crd_urls and the rewrite version_replacement_sed that derives the others) and
// from the template's requirement on Cloudcoil, with Cloudcoil's releases on PyPI and
// VERSIONING.md deciding the current minor (the migration onto it is named when the
// template's lower bound is older). The text names every field inferred by a
// rule of thumb (each integration's policy, Cloudcoil's minor) and every field it could
// not infer (left empty, so the file does not validate until filled in); --format file
// prints only the file, to redirect into models/upstreams.json.
// +cache="never"
// +cacheReason="reads PyPI: a new Cloudcoil release moves the current minor's version"
func (m *Shipyard) ProposeUpstreams(
	ctx context.Context,
	// Output: text (what to confirm, then the file) or file (the file only).
	// +optional
	// +default="text"
	format string,
	// The PyPI index Cloudcoil's releases are read from: the newest release the template's
	// requirement admits decides the current minor.
	// +default="https://pypi.org"
	pypiUrl string,
) (string, error) {
	if err := output.Check(format, output.Text, output.File); err != nil {
		return "", err
	}
	_, src, err := m.sessionSource(ctx)
	if err != nil {
		return "", err
	}
	proposal, err := versions.ProposeUpstreams(ctx, src, "cloudcoil", versions.PyPISource{URL: pypiUrl})
	if err != nil {
		return "", err
	}
	if format == "file" {
		raw, err := proposal.File.Marshal()
		return string(raw), err
	}
	return proposal.Text()
}
