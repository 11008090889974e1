package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

var commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// DevTags are the tags a push to dev publishes: sha-<commit> (never moves: it names the
// image of that commit) and dev (moves to the newest commit).
func DevTags(sha string) ([]string, error) {
	if !commitRE.MatchString(sha) {
		return nil, fmt.Errorf("--sha %q: give the full commit SHA (40 lowercase hex characters), e.g. ${{ github.sha }}", sha)
	}
	return []string{CommitTag(sha), TagDev}, nil
}

// TagImages points tags at each pushed digest, as the flow fn (the function it is a call
// of, tag-images), which names it in logs and errors. The registry command plans every tag of
// every image first (plan-tags): if any tag is refused — a version or commit tag already
// on another digest, which never moves — no tag of any image is written and the error
// names both digests. Then it applies the plans image by image (apply-tags), rechecking
// immutable tags right before writing, immutable tags before moving ones. A tag already on
// its digest is kept, so a re-run writes nothing. latest is refused: it follows the
// highest release, and only the release moves it (MoveLatest), for every image or none.
//
// dev follows the newest commit of the dev branch: it needs the commit's sha-<commit> tag in
// the same call, and devOrder, asked right before the plans are applied when one creates
// or moves dev; the registry command reads dev and the images of the newer commits right
// before dev is written, fails if dev moved since the plan, and leaves dev (reported
// skipped) when it is on the image of a newer commit or the commit is not on dev, so a
// re-run of an older run never moves it back.
//
// Call it only after the digests were scanned, attested and signed: that is what makes a
// moving tag safe to follow.
func TagImages(ctx context.Context, fn string, t Target, pushed []Pushed, tags []string, devOrder DevOrder) ([]ApplyReport, error) {
	s := &ImageState{Target: t, Pushed: pushed, Tags: tags, DevOrder: devOrder}
	err := Alone(ctx, fn, s, StepTag)
	return s.Applied, err
}

// checkTags refuses, before anything is tagged, what the tag step cannot write: no tags,
// latest (the release's alone), and dev without the commit's tag.
func checkTags(tags []string) error {
	if len(tags) == 0 {
		return errors.New("no tags given")
	}
	if slices.Contains(tags, TagLatest) {
		return errors.New("latest follows the highest release and is set by the release flow, " +
			"which rechecks it right before writing; no stillLatest recheck was given, so nothing was tagged")
	}
	_, err := devCommit(tags)
	return err
}

// tagImages is the tagging of pushed, as TagImages describes.
func tagImages(ctx context.Context, t Target, pushed []Pushed, tags []string, devOrder DevOrder) ([]ApplyReport, error) {
	commit, err := devCommit(tags)
	if err != nil {
		return nil, fmt.Errorf("nothing was tagged: %w", err)
	}
	plans, err := t.planTags(ctx, pushed, tags)
	if err != nil {
		return nil, fmt.Errorf("nothing was tagged: %w", err)
	}
	plansJSON, err := json.Marshal(plans)
	if err != nil {
		return nil, err
	}
	args := []string{"--plans", string(plansJSON)}
	if writesDev(plans) {
		if devOrder == nil {
			return nil, errors.New("nothing was tagged: dev would move, but no recheck of the commit order on dev was given")
		}
		// The GitHub half of the recheck, right before the command, which reads the
		// registry half right before dev moves: a commit pushed to dev in between is not
		// seen, and its own run's tag step moves dev after this one.
		h, err := devOrder(ctx, commit)
		if err != nil {
			return nil, fmt.Errorf("nothing was tagged: recheck dev: %w", err)
		}
		h.Commit = commit
		hJSON, err := json.Marshal(h)
		if err != nil {
			return nil, err
		}
		args = append(args, "--dev-history", string(hJSON))
	}
	stdout, err := t.run(ctx, registryCall{cmd: "apply-tags", args: args, about: pushed[0].Repository})
	var reports []ApplyReport
	if jerr := json.Unmarshal([]byte(stdout), &reports); jerr != nil && err == nil {
		return nil, fmt.Errorf("reading the output of registry apply-tags: %w", jerr)
	}
	if err != nil {
		name := "the images"
		if len(reports) > 0 {
			name = nameOf(pushed, reports[len(reports)-1].Image)
		}
		return reports, fmt.Errorf("%s: %w (tags already written stay; re-run the step to finish)", name, err)
	}
	return reports, nil
}

// nameOf is the name of the pushed image in repo.
func nameOf(pushed []Pushed, repo string) string {
	for _, p := range pushed {
		if p.Repository == repo {
			return p.Name
		}
	}
	return repo
}

// writesDev is whether a plan creates dev or moves it off another digest: then the commit
// order on dev is asked, so that only a commit on dev creates dev.
func writesDev(plans []Tagging) bool {
	for _, p := range plans {
		for _, a := range p.Actions {
			if a.Tag == TagDev && a.Action != ActionKeep {
				return true
			}
		}
	}
	return false
}

// planTags has the registry command plan pointing tags at each pushed digest; a tag that
// never moves found on another digest is refused for every image it concerns.
func (t Target) planTags(ctx context.Context, pushed []Pushed, tags []string) ([]Tagging, error) {
	var args []string
	for _, p := range pushed {
		args = append(args, "--image", p.Ref())
	}
	for _, tag := range tags {
		args = append(args, "--tag", tag)
	}
	var plans []Tagging
	if err := t.runJSON(ctx, registryCall{cmd: "plan-tags", args: args, about: pushed[0].Repository}, &plans); err != nil {
		return nil, err
	}
	if len(plans) != len(pushed) {
		return nil, fmt.Errorf("registry plan-tags planned %d of %d images", len(plans), len(pushed))
	}
	return plans, nil
}

// MoveLatest points latest at each pushed digest, in every repository or in none: it asks
// stillLatest (the GitHub half of the recheck) right before the registry command, which
// reads the registry half right before the first write, and rolls back the repositories
// already written if a later write fails.
func MoveLatest(ctx context.Context, t Target, pushed []Pushed, stillLatest StillLatest) (LatestReport, error) {
	if stillLatest == nil {
		return LatestReport{}, errors.New("move latest: no stillLatest check was given")
	}
	ok, higher, err := stillLatest(ctx)
	if err != nil {
		return LatestReport{}, fmt.Errorf("move latest: recheck latest: %w", err)
	}
	if !ok {
		return skippedLatest(pushed), nil
	}
	var args []string
	for _, p := range pushed {
		args = append(args, "--image", p.Ref())
	}
	for _, v := range higher {
		args = append(args, "--higher", v)
	}
	stdout, err := t.run(ctx, registryCall{cmd: "latest", args: args, about: pushed[0].Repository})
	var report LatestReport
	if jerr := json.Unmarshal([]byte(stdout), &report); jerr != nil && err == nil {
		return LatestReport{}, fmt.Errorf("move latest: reading the output of registry latest: %w", jerr)
	}
	return report, err
}

// skippedLatestReason is why latest stays everywhere once a higher release is out.
const skippedLatestReason = "no longer the highest release: latest left where it is in every image"

// skippedLatest is the report of a move GitHub's recheck stopped: every image's latest
// left where it is, as the registry command reports its own recheck's refusal.
func skippedLatest(pushed []Pushed) LatestReport {
	r := LatestReport{Skipped: skippedLatestReason}
	for _, p := range pushed {
		r.Moves = append(r.Moves, LatestMove{Repo: p.Repository, Digest: p.Digest, Action: ActionMove})
	}
	return r
}

// devCommit is the commit whose image dev is to point at: the one the call's
// sha-<commit> tag names. dev without it has no place in the commit order.
func devCommit(tags []string) (string, error) {
	if !slices.Contains(tags, TagDev) {
		return "", nil
	}
	for _, t := range tags {
		if c, ok := strings.CutPrefix(t, CommitTag("")); ok && commitRE.MatchString(c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("dev follows the newest commit of the dev branch: tag the commit's image sha-<full commit SHA> in the same call (e.g. --tag dev --tag sha-$GITHUB_SHA)")
}
