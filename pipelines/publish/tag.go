package publish

import (
	"context"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/wire"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// BranchTags are the tags a push to the policy's branch publishes for commit sha: its
// commit tag (never moves: it names the image of that commit) and the branch tag (moves to
// the newest commit).
func BranchTags(p TagPolicy, sha string) ([]string, error) {
	if !commitRE.MatchString(sha) {
		return nil, InputErrorf("%s %q: give the full commit SHA (40 lowercase hex characters), e.g. ${{ github.sha }}", InputCommit, sha)
	}
	if p.BranchTag == "" || p.CommitPrefix == "" {
		return nil, errors.New("the tag policy names no branch tag and commit tag: this system publishes no branch's commits")
	}
	return []string{p.CommitTag(sha), p.BranchTag}, nil
}

// checkTags refuses, before anything is tagged, what the tag step cannot write: no tags,
// the latest tag (the release's alone), and the branch tag without the commit's tag.
func checkTags(p TagPolicy, tags []string) error {
	if len(tags) == 0 {
		return errors.New("no tags given")
	}
	if p.Latest != "" && slices.Contains(tags, p.Latest) {
		return fmt.Errorf("%s follows the highest release and is set by the release flow, "+
			"which rechecks it right before writing; no stillLatest recheck was given, so nothing was tagged", p.Latest)
	}
	_, err := branchCommit(p, tags)
	return err
}

// tagImages is the tagging of pushed, as TagImages describes.
func tagImages(ctx context.Context, t Target, pushed []Pushed, tags []string, branchOrder BranchOrder) ([]ApplyReport, error) {
	commit, err := branchCommit(t.Tags, tags)
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
	args := []string{"--tag-policy", t.Tags.Flag(), "--plans", string(plansJSON)}
	if writesBranchTag(t.Tags, plans) {
		if branchOrder == nil {
			return nil, fmt.Errorf("nothing was tagged: %s would move, but no recheck of the commit order on %s was given", t.Tags.BranchTag, t.Tags.Branch)
		}
		// The GitHub half of the recheck, right before the command, which reads the
		// registry half right before the tag moves: a commit pushed to the branch in
		// between is not seen, and its own run's tag step moves the tag after this one.
		h, err := branchOrder(ctx, commit)
		if err != nil {
			return nil, fmt.Errorf("nothing was tagged: recheck %s: %w", t.Tags.BranchTag, err)
		}
		h.Commit = commit
		hJSON, err := json.Marshal(h)
		if err != nil {
			return nil, err
		}
		args = append(args, "--branch-history", string(hJSON))
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

// writesBranchTag is whether a plan creates the branch tag or moves it off another digest:
// then the commit order on the branch is asked, so that only a commit on the branch
// creates it.
func writesBranchTag(policy TagPolicy, plans []Tagging) bool {
	if policy.BranchTag == "" {
		return false
	}
	for _, p := range plans {
		for _, a := range p.Actions {
			if a.Tag == policy.BranchTag && a.Action != ActionKeep {
				return true
			}
		}
	}
	return false
}

// MoveLatest points the policy's latest tag at each pushed digest, in every repository or
// in none: it asks
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
		return skippedLatest(t.Tags, pushed), nil
	}
	args := []string{"--tag-policy", t.Tags.Flag()}
	for _, p := range pushed {
		args = append(args, "--image", p.Ref())
	}
	for _, v := range higher {
		args = append(args, "--higher", v)
	}
	stdout, err := t.run(ctx, registryCall{cmd: "move-latest", args: args, about: pushed[0].Repository})
	var report LatestReport
	if jerr := json.Unmarshal([]byte(stdout), &report); jerr != nil && err == nil {
		return LatestReport{}, fmt.Errorf("move latest: reading the output of registry move-latest: %w", jerr)
	}
	return report, err
}

// skippedLatestReason is why the latest tag stays everywhere once a higher release is out.
func skippedLatestReason(p TagPolicy) string {
	return "no longer the highest release: " + p.Latest + " left where it is in every image"
}

// skippedLatest is the report of a move GitHub's recheck stopped: every image's latest tag
// left where it is, as the registry command reports its own recheck's refusal.
func skippedLatest(p TagPolicy, pushed []Pushed) LatestReport {
	r := LatestReport{Skipped: skippedLatestReason(p)}
	for _, p := range pushed {
		r.Moves = append(r.Moves, LatestMove{Repo: p.Repository, Digest: p.Digest, Action: ActionMove})
	}
	return r
}

// branchCommit is the commit whose image the branch tag is to point at: the one the call's
// commit tag names, in full. The branch tag without it has no place in the commit order.
func branchCommit(p TagPolicy, tags []string) (string, error) {
	if p.BranchTag == "" || !slices.Contains(tags, p.BranchTag) {
		return "", nil
	}
	for _, t := range tags {
		if c, ok := p.CommitOf(t); ok && commitRE.MatchString(c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("%s follows the newest commit of the %s branch: tag the commit's image %s in the same call (e.g. --tag %s --tag %s)",
		p.BranchTag, p.Branch, p.CommitTag("<full commit SHA>"), p.BranchTag, p.CommitTag("$GITHUB_SHA"))
}

// StepTag is the name of the tag step.
const StepTag = "tag"

var tagStep = imageStep{name: StepTag, writes: true, next: adviceTag, run: (*ImageState).tag}

// tag points Tags at each pushed digest (nothing is written if any of them is refused),
// then, when Latest, moves latest for every image together or for none.
func (s *ImageState) tag(ctx context.Context) error {
	var err error
	s.Applied, err = tagImages(ctx, s.Target, s.Pushed, s.Tags, s.BranchOrder)
	if err != nil {
		return err
	}
	if s.Latest {
		latest, err := MoveLatest(ctx, s.Target, s.Pushed, s.StillLatest)
		addLatest(s.Target.Tags, s.Applied, latest)
		if err != nil {
			return err
		}
	}
	for _, r := range s.Applied {
		flow.Logf(ctx, "%s@%s: %d written, %d kept, %d skipped", r.Image, r.Digest, len(r.Written), len(r.Kept), len(r.Skipped))
	}
	return nil
}

// addLatest records the latest tag's outcome in each image's report, as the other tags' are.
func addLatest(p TagPolicy, reports []ApplyReport, latest LatestReport) {
	for i := range reports {
		for _, m := range latest.Moves {
			if m.Repo != reports[i].Image {
				continue
			}
			a := TagAction{Tag: p.Latest, Class: wire.ClassMoving, Action: m.Action, From: m.From}
			switch {
			case m.Action == ActionKeep:
				reports[i].Kept = append(reports[i].Kept, a)
			case latest.Skipped != "":
				reports[i].Skipped = append(reports[i].Skipped, SkippedTag{Tag: p.Latest, Reason: latest.Skipped})
			case slices.Contains(latest.Written, m.Repo):
				reports[i].Written = append(reports[i].Written, a)
			}
		}
	}
}
