package main

import (
	"context"
	"errors"
	"fmt"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/output"
	"dagger/shipyard/pipelines/releasegate"
)

// githubClient opens the GitHub API with the constructor's token, read into memory only.
func (m *Shipyard) githubClient(ctx context.Context) (*github.Client, error) {
	api, err := m.githubAPI(ctx)
	if err != nil {
		return nil, err
	}
	token, err := plaintext(ctx, m.GithubToken)
	if err != nil {
		return nil, fmt.Errorf("--github-token: %w", err)
	}
	gh, err := github.NewClient(api, token)
	if err != nil {
		return nil, fmt.Errorf("GitHub API %s: %w", api, err)
	}
	return gh, nil
}

// ReleasePlan checks, through the GitHub API and without running any code of the tagged
// commit, every gate a release tag must pass before anything is built: the tag is a release
// version (vX.Y.Z, or with aN, bN, rcN), annotated and signed with a signature GitHub
// verified, on main; CITATION.cff has the version; docs/releases/<version>.md exists and
// follows the format; CI passed for the commit's push to dev; no release of the tag is
// published yet. Returns the plan (version, pre-release, image tags, notes), or fails with
// every violated rule at once.
//
// With --format json the result is one JSON document: {"ok": true, "plan": {...}} on
// stdout when the tag passes; when it fails, the function still fails (so a caller that
// reads only the exit status stays closed), and its error is exactly the one-line document
// {"ok": false, "violations": [...]}, each violation with its rule, name, file, line,
// message, details, fix and summary. Dagger prints a failing function's error on stderr,
// so that is where the document is then.
// +cache="never"
func (m *Shipyard) ReleasePlan(
	ctx context.Context,
	// The release tag, e.g. v0.11.0 or v0.11.0rc1.
	tag string,
	// Output format: text or json.
	// +default="text"
	format string,
	// The CI workflow's file name under .github/workflows.
	// +default="ci.yml"
	workflow string,
) (string, error) {
	if err := output.Check(format); err != nil {
		return "", err
	}
	gh, err := m.githubClient(ctx)
	if err != nil {
		return "", err
	}
	plan, err := releasegate.Check(ctx, gh, m.Repo, tag, releasegate.Config{Workflow: workflow, ImageOrg: m.Org})
	if format == "json" {
		var gate *releasegate.GateError
		if errors.As(err, &gate) {
			return "", jsonGateError{gate}
		}
		if err != nil {
			return "", err
		}
		return toJSON(releasegate.Report{OK: true, Plan: &plan})
	}
	if err != nil {
		return "", err
	}
	return plan.Text(), nil
}

// jsonGateError is a failed gate whose text is release-plan's JSON document.
type jsonGateError struct{ gate *releasegate.GateError }

func (e jsonGateError) Error() string { return e.gate.JSON() }
func (e jsonGateError) Unwrap() error { return e.gate }
