package main

import (
	"context"
	"errors"

	"dagger/shipyard/internal/output"
	"dagger/shipyard/pipelines/releasegate"
)

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
//
// With --commit it rehearses the release before the tag is pushed: every rule but the
// tag's own signature is checked at that commit (on main, CITATION.cff, the notes, CI for
// its push to dev, not released), and an existing tag of that name must be on it. The
// token reads contents, Actions runs and releases (contents: read, actions: read).
// +cache="never"
// +cacheReason="reads tags, releases and CI runs on GitHub"
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
	// Rehearse for this commit (its full SHA, e.g. $(git rev-parse main)) before the tag
	// exists.
	// +optional
	commit string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		if err := output.Check(format); err != nil {
			return "", err
		}
		gh, err := m.githubClient(ctx)
		if err != nil {
			return "", err
		}
		plan, err := releasegate.Check(ctx, gh, m.Repo, tag, releasegate.Config{Workflow: workflow, ImageOrg: m.Org, Commit: commit})
		var gate *releasegate.GateError
		if format == "json" && errors.As(err, &gate) {
			return "", reportError{report: gate.JSON(), cause: gate}
		}
		if err != nil {
			return "", err
		}
		if format == "json" {
			return toJSON(releasegate.Report{OK: true, Plan: &plan})
		}
		return plan.Text(), nil
	})
}

// NextReleaseCheck checks, in a pull request, the release files of the version the tree's
// CITATION.cff names, before anything is tagged: the version is a release version,
// CITATION.cff names it with its date-released, and docs/releases/<version>.md exists and
// follows the curated format (release-plan's rules 1, 4 and 5), so a typo costs a commit,
// not a version number. With --github-token (read access), a version already released is
// left alone: between releases CITATION.cff names the latest one. Fails with every problem.
// +cache="never"
// +cacheReason="reads the releases on GitHub, which a later release changes"
func (m *Shipyard) NextReleaseCheck(ctx context.Context) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		_, src, err := m.sessionSource(ctx)
		if err != nil {
			return "", err
		}
		read := func(path string) releasegate.FileFacts {
			f := releasegate.FileFacts{Path: path}
			if content, err := src.File(path).Contents(ctx); err == nil {
				f.Found, f.Content = true, []byte(content)
			}
			return f
		}
		var released []string
		if m.GithubToken != nil || m.Demo {
			if released, err = m.publishedReleases(ctx); err != nil {
				return "", err
			}
		}
		next := releasegate.CheckNext(read(releasegate.CitationFile),
			func(v string) releasegate.FileFacts { return read(releasegate.NotesPath("v" + v)) }, released)
		if err := next.Err(); err != nil {
			return "", err
		}
		return next.Text(), nil
	})
}
