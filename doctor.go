package main

import (
	"context"

	"dagger/shipyard/internal/doctor"
	"dagger/shipyard/internal/output"
)

// Doctor checks, read-only through the GitHub API, the repository settings the system's
// guarantees rest on, and says for each what is wrong, why it matters and the exact fix
// (a settings page or an API call). For tesk-core (--system tesk-core): only admins may
// create v* tags and nobody may move or delete them (tag rulesets); the environment
// release accepts only v* tags and has required reviewers; release and dev-images have
// the secrets DOCKERHUB_LOGIN and DOCKERHUB_TOKEN (names only; values are never read),
// which are no repository or organisation secrets; "CI passed" is required on dev and
// main; Dependabot and CODEOWNERS are configured; the workflows pin Shipyard to a commit.
// For a Cloudcoil model repository (--system cloudcoil-model, with --repo
// cloudcoil/models-<name>): AUTO_PUBLISH_MODELS is true, false or absent; CI_GITHUB_TOKEN
// is a secret of the environment automation and no repository or organisation secret;
// pypi_publish.yml grants id-token: write only to its upload job; and that the trusted
// publisher PyPI recorded for the newest upload (its provenance, read with --pypi-url's
// Integrity API) names this repository, pypi_publish.yml and the upload job's environment,
// or no environment. For Cloudcoil's generator
// repository (--system cloudcoil-generator): CI_GITHUB_TOKEN's place, as for a model
// repository. A setting the token may not
// read is reported as "cannot check" with the permission needed, never as a pass. Fails
// (with the report as its error) when a check fails; "cannot check" alone only warns,
// unless --strict.
// +cache="never"
// +cacheReason="reads the repository's settings on GitHub and its uploads on PyPI"
func (m *Shipyard) Doctor(
	ctx context.Context,
	// Which system's repository --repo is: tesk-core, cloudcoil-model or
	// cloudcoil-generator.
	// +default="tesk-core"
	system string,
	// Output format: text or json.
	// +default="text"
	format string,
	// Fail also when a check cannot be run for lack of permission.
	// +optional
	strict bool,
	// PyPI's base URL, where a model distribution's newest upload and its provenance are
	// read (cloudcoil-model).
	// +default="https://pypi.org"
	pypiUrl string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		if err := output.Check(format); err != nil {
			return "", err
		}
		sys, err := doctor.ParseSystem(system)
		if err != nil {
			return "", err
		}
		gh, err := m.githubClient(ctx)
		if err != nil {
			return "", err
		}
		var report doctor.Report
		switch sys {
		case doctor.TeskCore:
			facts, err := doctor.GatherTesk(ctx, gh, m.Repo)
			if err != nil {
				return "", err
			}
			report = doctor.EvaluateTesk(facts)
		case doctor.CloudcoilModel:
			facts, err := doctor.GatherModel(ctx, gh, m.Repo, doctor.PyPISource{URL: pypiUrl})
			if err != nil {
				return "", err
			}
			report = doctor.EvaluateModel(facts)
		case doctor.CloudcoilGenerator:
			facts, err := doctor.GatherGenerator(ctx, gh, m.Repo)
			if err != nil {
				return "", err
			}
			report = doctor.EvaluateGenerator(facts)
		}
		out := report.Text()
		if format == "json" {
			if out, err = report.JSON(); err != nil {
				return "", err
			}
		}
		if !report.OK(strict) {
			return "", reportError{report: out}
		}
		return out, nil
	})
}
