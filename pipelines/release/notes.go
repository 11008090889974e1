package release

import (
	"context"
	"fmt"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/notes"
	"dagger/shipyard/internal/version"
	"dagger/shipyard/pipelines/releasegate"
)

// Body is the GitHub release a tag gets: its title and its Markdown body.
type Body struct {
	Title string `json:"title"`
	Text  string `json:"body"`
	// Previous is the release the generated notes start from; empty for a first release.
	Previous string `json:"previous,omitempty"`
}

// PreviousRelease picks where a release's generated notes start: the highest published
// release below tag in PEP 440 order, pre-releases included, so v0.11.0 follows v0.11.0rc1
// and a backport v0.10.7 follows v0.10.6, never v0.11.0. Tags that are not release versions
// are ignored; "" means there is none (a first release).
func PreviousRelease(tag string, published []string) string {
	t, err := version.ParseReleaseTag(tag)
	if err != nil {
		return ""
	}
	var best version.ReleaseTag
	found := false
	for _, name := range published {
		p, err := version.ParseReleaseTag(name)
		if err != nil || p.Compare(t) >= 0 {
			continue
		}
		if !found || p.Compare(best) > 0 {
			best, found = p, true
		}
	}
	if !found {
		return ""
	}
	return best.Tag()
}

// ReleaseBody composes the release of the plan's tag: the curated notes of the tagged
// commit, then GitHub's generated notes since the previous release under "## Commits", and
// GitHub's "**Full Changelog**" line last. Generating notes needs a token that may write
// contents, though GitHub saves nothing.
func ReleaseBody(ctx context.Context, cfg Config, plan releasegate.Plan) (Body, error) {
	owner, name, err := cfg.owner()
	if err != nil {
		return Body{}, err
	}
	// PreviousRelease ignores the tag's own release, if an earlier attempt created it.
	published, err := cfg.publishedReleases(ctx)
	if err != nil {
		return Body{}, err
	}
	prev := PreviousRelease(plan.Tag, published)
	gen, err := cfg.GitHub.GenerateNotes(ctx, owner, name, github.NotesRequest{
		TagName: plan.Tag, PreviousTagName: prev, TargetCommitish: plan.Commit,
	})
	if err != nil {
		return Body{}, flow.Advise(fmt.Errorf("generating the notes since %s: %w", orFirst(prev), err),
			"give a token that may write contents (generating notes needs it), then run the same call again")
	}
	return Body{Title: plan.Tag, Text: notes.Compose(plan.Notes, gen.Body), Previous: prev}, nil
}

func orFirst(prev string) string {
	if prev == "" {
		return "the first commit"
	}
	return prev
}
