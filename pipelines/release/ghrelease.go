package release

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/pipelines/releasegate"
)

// GitHubRelease is the outcome of the GitHub step.
type GitHubRelease struct {
	Tag        string `json:"tag"`
	Title      string `json:"title"`
	URL        string `json:"url,omitempty"`
	Prerelease bool   `json:"prerelease"`
	// MakeLatest is what the release was created with, "true" or "false"; empty when an
	// earlier attempt created it (GitHub does not say what it was given).
	MakeLatest string `json:"make_latest,omitempty"`
	// Outcome is "created", "kept" (it existed with this content) or "planned" (dry run).
	Outcome string `json:"outcome"`
	Body    string `json:"body"`
}

// ReleaseDifference lists how an existing release differs from the expected one; empty
// when they agree. Only what the release step writes is compared: GitHub does not echo
// make_latest.
func ReleaseDifference(existing github.Release, plan releasegate.Plan, body Body) []string {
	var diffs []string
	if existing.Draft {
		diffs = append(diffs, "it is a draft")
	}
	if existing.Name != body.Title {
		diffs = append(diffs, fmt.Sprintf("title %q, expected %q", existing.Name, body.Title))
	}
	if existing.Prerelease != plan.Prerelease {
		diffs = append(diffs, fmt.Sprintf("pre-release %t, expected %t", existing.Prerelease, plan.Prerelease))
	}
	if normalise(existing.Body) != normalise(body.Text) {
		diffs = append(diffs, "the body differs"+firstDifference(normalise(existing.Body), normalise(body.Text)))
	}
	return diffs
}

// normalise reads CRLF as LF and ignores trailing blank space, which GitHub's editor may
// change; every other byte counts.
func normalise(s string) string {
	return strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), " \n")
}

func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf(" from line %d: %q, expected %q", i+1, gl, wl)
		}
	}
	return ""
}

// PublishRelease creates the GitHub release of the plan's tag with body: prerelease as
// planned, make_latest given explicitly ("true" only when the plan says so and no higher
// release was published since), the tag's commit as target. It converges: an existing
// release with this content is kept (a re-run after an attempt that created it passes
// without changes); one with other content stops the step, since releases are never
// edited. A create whose outcome is unknown is read back before it is sent again.
func PublishRelease(ctx context.Context, cfg Config, plan releasegate.Plan, body Body) (GitHubRelease, error) {
	owner, name, err := cfg.owner()
	if err != nil {
		return GitHubRelease{}, err
	}
	out := GitHubRelease{Tag: plan.Tag, Title: body.Title, Prerelease: plan.Prerelease, Body: body.Text}
	existing, found, err := cfg.GitHub.ReleaseByTag(ctx, owner, name, plan.Tag)
	if err != nil {
		return out, err
	}
	if found {
		return keep(ctx, cfg, out, existing, plan, body)
	}

	out.MakeLatest = "false"
	if plan.MakeLatest == "true" {
		ok, err := githubStillLatest(ctx, cfg, plan.Tag)
		if err != nil {
			return out, fmt.Errorf("rechecking latest: %w", err)
		}
		if ok {
			out.MakeLatest = "true"
		} else {
			flow.Logf(ctx, "a higher release was published since the plan; %s is created with make_latest false", plan.Tag)
		}
	}
	var (
		created github.Release
		// mismatch is a release that appeared while the outcome of the create was unknown.
		mismatch error
	)
	err = cfg.GitHub.WriteThenVerify(ctx,
		func(ctx context.Context) error {
			r, err := cfg.GitHub.CreateRelease(ctx, owner, name, github.NewRelease{
				TagName: plan.Tag, TargetCommitish: plan.Commit, Name: body.Title, Body: body.Text,
				Prerelease: plan.Prerelease, MakeLatest: out.MakeLatest,
			})
			created = r
			return err
		},
		func(ctx context.Context) (bool, error) {
			r, found, err := cfg.GitHub.ReleaseByTag(ctx, owner, name, plan.Tag)
			if err != nil || !found {
				return false, err
			}
			created = r
			if d := ReleaseDifference(r, plan, body); len(d) > 0 {
				mismatch = fmt.Errorf("a release of %s appeared with other content: %s", plan.Tag, strings.Join(d, "; "))
				return false, mismatch
			}
			return true, nil
		})
	if errors.Is(err, github.ErrAlreadyExists) {
		// Created meanwhile, by an attempt whose answer was lost or by someone else: it
		// passes only with the expected content.
		existing, found, rerr := cfg.GitHub.ReleaseByTag(ctx, owner, name, plan.Tag)
		if rerr != nil || !found {
			return out, errors.Join(err, rerr)
		}
		return keep(ctx, cfg, out, existing, plan, body)
	}
	if mismatch != nil {
		return out, flow.Advise(mismatch, nextNeverEdited)
	}
	if err != nil {
		return out, err
	}
	out.URL, out.Outcome = created.URL, "created"
	flow.Logf(ctx, "created %s (pre-release %t, make_latest %s): %s", plan.Tag, plan.Prerelease, out.MakeLatest, out.URL)
	return out, nil
}

func keep(ctx context.Context, cfg Config, out GitHubRelease, existing github.Release, plan releasegate.Plan, body Body) (GitHubRelease, error) {
	if d := ReleaseDifference(existing, plan, body); len(d) > 0 {
		return out, flow.Advise(fmt.Errorf("a release of %s exists with other content (%s): %s", plan.Tag, existing.URL, strings.Join(d, "; ")),
			nextNeverEdited)
	}
	out.URL, out.Outcome, out.MakeLatest = existing.URL, "kept", ""
	flow.Logf(ctx, "the release of %s exists with this content; kept: %s", plan.Tag, existing.URL)
	return out, nil
}

// githubStillLatest rechecks, right before the release is created, that no higher final
// release was published on GitHub since the plan.
func githubStillLatest(ctx context.Context, cfg Config, tag string) (bool, error) {
	published, err := cfg.publishedReleases(ctx)
	if err != nil {
		return false, err
	}
	return StillLatestAmong(tag, published, nil)
}
