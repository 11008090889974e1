package publish

import (
	"context"
	"dagger/shipyard/internal/flow"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// DevTags are the tags a push to dev publishes: sha-<commit> (never moves: it names the
// image of that commit) and dev (moves to the newest commit).
func DevTags(sha string) ([]string, error) {
	if !commitRE.MatchString(sha) {
		return nil, fmt.Errorf("--sha %q: give the full commit SHA (40 lowercase hex characters), e.g. ${{ github.sha }}", sha)
	}
	return []string{CommitTag(sha), TagDev}, nil
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

// StepTag is the name of the tag step.
const StepTag = "tag"

var tagStep = imageStep{name: StepTag, writes: true, next: adviceTag, run: (*ImageState).tag}

// tag points Tags at each pushed digest (nothing is written if any of them is refused),
// then, when Latest, moves latest for every image together or for none.
func (s *ImageState) tag(ctx context.Context) error {
	var err error
	s.Applied, err = tagImages(ctx, s.Target, s.Pushed, s.Tags, s.DevOrder)
	if err != nil {
		return err
	}
	if s.Latest {
		latest, err := MoveLatest(ctx, s.Target, s.Pushed, s.StillLatest)
		addLatest(s.Applied, latest)
		if err != nil {
			return err
		}
	}
	for _, r := range s.Applied {
		flow.Logf(ctx, "%s@%s: %d written, %d kept, %d skipped", r.Image, r.Digest, len(r.Written), len(r.Kept), len(r.Skipped))
	}
	return nil
}

// addLatest records latest's outcome in each image's report, as the other tags' are.
func addLatest(reports []ApplyReport, latest LatestReport) {
	for i := range reports {
		for _, m := range latest.Moves {
			if m.Repo != reports[i].Image {
				continue
			}
			a := TagAction{Tag: TagLatest, Class: "moving", Action: m.Action, From: m.From}
			switch {
			case m.Action == ActionKeep:
				reports[i].Kept = append(reports[i].Kept, a)
			case latest.Skipped != "":
				reports[i].Skipped = append(reports[i].Skipped, SkippedTag{Tag: TagLatest, Reason: latest.Skipped})
			case slices.Contains(latest.Written, m.Repo):
				reports[i].Written = append(reports[i].Written, a)
			}
		}
	}
}
