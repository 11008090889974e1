package publish

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/registry"
)

var commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// DevTags are the tags a push to dev publishes: sha-<commit> (never moves: it names the
// image of that commit) and dev (moves to the newest commit).
func DevTags(sha string) ([]string, error) {
	if !commitRE.MatchString(sha) {
		return nil, fmt.Errorf("--sha %q: give the full commit SHA (40 lowercase hex characters), e.g. ${{ github.sha }}", sha)
	}
	return []string{"sha-" + sha, registry.TagDev}, nil
}

// TagImages points tags at each pushed digest. It plans every tag of every image first
// (internal/registry.PlanTags): if any tag is refused — a version or commit tag already on
// another digest, which never moves — no tag of any image is written and the error names
// both digests. Then it applies the plans image by image; ApplyTags rechecks immutable tags
// right before writing, writes immutable tags before moving ones and latest last (after
// stillLatest agrees). A tag already on its digest is kept, so a re-run writes nothing.
// latest is refused without stillLatest: it follows the highest release, so only a flow
// that rechecks that right before writing (the release) sets it.
//
// dev follows the newest commit of the dev branch: it needs the commit's sha-<commit> tag in
// the same call, and devOrder, asked right before dev moves; dev is left (and reported
// skipped) when it is on the image of a newer commit, so a re-run of an older run never
// moves it back.
//
// Call it only after the digests were scanned, attested and signed: that is what makes a
// moving tag safe to follow.
func TagImages(ctx context.Context, t Target, pushed []Pushed, tags []string, stillLatest registry.StillLatest, devOrder DevOrder) ([]registry.ApplyReport, error) {
	if err := t.check(); err != nil {
		return nil, fmt.Errorf("tag-images: %w", err)
	}
	if err := checkPushed(pushed); err != nil {
		return nil, fmt.Errorf("tag-images: %w", err)
	}
	if len(tags) == 0 {
		return nil, errors.New("tag-images: no tags given")
	}
	if slices.Contains(tags, registry.TagLatest) && stillLatest == nil {
		return nil, errors.New("tag-images: latest follows the highest release and is set by the release flow, " +
			"which rechecks it right before writing; no stillLatest recheck was given, so nothing was tagged")
	}
	commit, err := devCommit(tags)
	if err != nil {
		return nil, fmt.Errorf("tag-images: nothing was tagged: %w", err)
	}
	plans := make([]registry.Tagging, len(pushed))
	err = fanout.Each(ctx, 0, len(pushed), func(ctx context.Context, i int) error {
		p := pushed[i]
		existing, err := registry.ResolveTags(ctx, p.Repository, tags, t.Auth, t.RegistryOptions...)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
		plan, err := registry.PlanTags(p.Repository, p.Digest, tags, existing)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
		plans[i] = plan
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tag-images: nothing was tagged: %w", err)
	}
	var reports []registry.ApplyReport
	for i, p := range pushed {
		opts := t.RegistryOptions
		if devOrder != nil {
			opts = append(slices.Clone(opts), registry.WithStillNewest(func(ctx context.Context, from string) (bool, string, error) {
				return devOrder(ctx, p.Repository, commit, from)
			}))
		}
		report, err := registry.ApplyTags(ctx, p.Repository, p.Digest, plans[i], t.Auth, stillLatest, opts...)
		reports = append(reports, report)
		if err != nil {
			return reports, fmt.Errorf("tag-images %s: %w (tags already written stay; re-run the step to finish)", p.Name, err)
		}
	}
	return reports, nil
}
