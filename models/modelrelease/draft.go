package modelrelease

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/models"
)

// draft is the draft of a run's version as the run left it.
type draft struct {
	id     int64
	commit string // the commit it pins
	record Record // the record of that commit
	steps  []string
	// published: another run already published the version with this record.
	published bool
}

// reconcileDraft makes the draft of plan.Version say what the release branch says: one
// draft (GitHub accepts duplicates; the oldest stays, the others are deleted), named and
// tagged with the version, pinned to the newest commit on the branch that records the
// version, with that commit's record in its body. It repeats until a round writes nothing
// (so a duplicate another run created meanwhile is seen), following the branch when
// another run pushed a newer commit of the same version. A round without writes costs a
// listing and a ref read, both answered from the ETag cache when nothing changed.
func (r remote) reconcileDraft(ctx context.Context, plan Allocation, commit, name string, rounds int) (draft, error) {
	d := draft{commit: commit, record: plan.Record}
	for range rounds {
		body := ReleaseBody(d.record, name)
		releases, err := r.gh.PinnedReleases(ctx, r.owner, r.repo)
		if err != nil {
			return d, err
		}
		var own []github.PinnedRelease
		for _, rel := range releases {
			if strings.TrimPrefix(rel.TagName, "v") != plan.Version {
				continue
			}
			if !rel.Draft {
				return d, r.publishedMeanwhile(rel, &d)
			}
			own = append(own, rel)
		}
		sort.Slice(own, func(i, j int) bool { return own[i].ID < own[j].ID })
		wrote := false
		if len(own) == 0 {
			if err := r.createDraft(ctx, plan.Version, d.commit, body); err != nil {
				return d, err
			}
			d.steps = append(d.steps, fmt.Sprintf("created draft %s pinned to %.12s", plan.Version, d.commit))
			wrote = true
		} else {
			keep := own[0]
			d.id = keep.ID
			for _, extra := range own[1:] {
				if err := r.gh.DeleteRelease(ctx, r.owner, r.repo, extra.ID); err != nil && !errors.Is(err, github.ErrNotFound) {
					return d, err
				}
				d.steps = append(d.steps, fmt.Sprintf("removed duplicate draft %d of %s", extra.ID, plan.Version))
				wrote = true
			}
			info := ReleaseInfo{ID: keep.ID, Tag: keep.TagName, Name: keep.Name, Body: keep.Body, Draft: true, Target: keep.TargetCommitish}
			if !plan.DraftUpToDate(info, d.commit, body) {
				if err := r.updateDraft(ctx, keep.ID, plan.Version, d.commit, body); err != nil {
					return d, err
				}
				d.steps = append(d.steps, fmt.Sprintf("updated draft %s to %.12s", plan.Version, d.commit))
				wrote = true
			}
		}
		// Another run may have pushed a newer commit of this version; the draft follows it.
		head, ok, err := r.gh.BranchHead(ctx, r.owner, r.repo, plan.Branch)
		if err != nil {
			return d, err
		}
		if ok && head != d.commit {
			rec, err := r.recordAt(ctx, head, plan.Branch)
			if err != nil {
				return d, err
			}
			if rec != nil && rec.Version == plan.Version {
				d.commit, d.record = head, *rec
				continue
			}
		}
		if !wrote {
			return d, nil
		}
	}
	return d, fmt.Errorf("draft %s did not settle in %d rounds: other runs keep changing %s or its drafts; rerun once they finish", plan.Version, rounds, plan.Branch)
}

// publishedMeanwhile handles a published release of the run's version found while
// reconciling: another run published it. With this run's record it is this run's release
// (converged); with another, this generation needs a new run and a new number.
func (r remote) publishedMeanwhile(rel github.PinnedRelease, d *draft) error {
	rec, ok, err := RecordFromBody(rel.Body)
	if err == nil && ok && rec == d.record {
		d.id, d.published = rel.ID, true
		d.steps = append(d.steps, fmt.Sprintf("%s was already published with this record", rel.TagName))
		return nil
	}
	return fmt.Errorf("%s was published by another run with other contents while this run prepared it; rerun to release this generation under a new number: %w", rel.TagName, errLostRace)
}

func (r remote) createDraft(ctx context.Context, version, commit, body string) error {
	create := func(ctx context.Context) error {
		_, err := r.gh.CreateRelease(ctx, r.owner, r.repo, github.NewRelease{
			TagName: version, TargetCommitish: commit, Name: version, Body: body, Draft: true,
		})
		return err
	}
	created := func(ctx context.Context) (bool, error) {
		list, err := r.gh.PinnedReleases(ctx, r.owner, r.repo)
		for _, rel := range list {
			if rel.Draft && rel.TagName == version && rel.TargetCommitish == commit {
				return true, err
			}
		}
		return false, err
	}
	if err := r.gh.WriteThenVerify(ctx, create, created); err != nil {
		return fmt.Errorf("%s: %w", version, err)
	}
	return nil
}

func (r remote) updateDraft(ctx context.Context, id int64, version, commit, body string) error {
	update := func(ctx context.Context) error {
		_, err := r.gh.EditRelease(ctx, r.owner, r.repo, id, github.ReleaseEdit{
			TagName: &version, TargetCommitish: &commit, Name: &version, Body: &body,
		})
		return err
	}
	updated := func(ctx context.Context) (bool, error) {
		rel, found, err := r.gh.ReleaseByID(ctx, r.owner, r.repo, id)
		return found && rel.TargetCommitish == commit && rel.Body == body, err
	}
	if err := r.gh.WriteThenVerify(ctx, update, updated); err != nil {
		return fmt.Errorf("%s: %w", version, err)
	}
	return nil
}

// publish publishes the draft, which creates its tag at the pinned commit and starts the
// repository's PyPI trusted publisher. It decides again first, with main's head now: if
// main moved since the run generated, or a newer commit of the version superseded this
// one, the draft stays unpublished, so an older generation never replaces a newer one.
func (r remote) publish(ctx context.Context, plan Allocation, d draft, start string, in Inputs) (bool, error) {
	main, ok, err := r.gh.BranchHead(ctx, r.owner, r.repo, r.main)
	if err != nil {
		return false, err
	}
	decision := models.Publication(models.PublishInputs{
		PublishFlag: in.Publish, AutoPublish: in.AutoPublish, ChecksPassed: true, MainAdvanced: !ok || main != start,
	})
	if decision.Action != models.Publish {
		return false, fmt.Errorf("%s: draft %s (%.12s) stays unpublished (main is at %.12s, the run generated %.12s)",
			decision.Reason, plan.Version, d.commit, main, start)
	}
	if head, ok, err := r.gh.BranchHead(ctx, r.owner, r.repo, plan.Branch); err != nil {
		return false, err
	} else if ok && head != d.commit {
		rec, err := r.recordAt(ctx, head, plan.Branch)
		if err != nil {
			return false, err
		}
		if rec != nil && rec.Version == plan.Version {
			return false, fmt.Errorf("%s moved to %.12s, a newer commit of %s, while this run published; that run publishes it", plan.Branch, head, plan.Version)
		}
	}
	if d.id == 0 {
		return false, fmt.Errorf("draft %s: no draft id to publish", plan.Version)
	}
	// GitHub publishes a draft on an existing tag wherever that tag points, ignoring the
	// draft's target_commitish: a stray tag of the version would release another commit.
	if err := r.checkTag(ctx, plan.Version, d.commit, tagBeforePublish); err != nil {
		return false, err
	}
	publishDraft := func(ctx context.Context) error {
		draft := false
		_, err := r.gh.EditRelease(ctx, r.owner, r.repo, d.id, github.ReleaseEdit{Draft: &draft, MakeLatest: plan.MakeLatest})
		return err
	}
	published := func(ctx context.Context) (bool, error) {
		rel, found, err := r.gh.ReleaseByID(ctx, r.owner, r.repo, d.id)
		return found && !rel.Draft, err
	}
	err = r.gh.WriteThenVerify(ctx, publishDraft, published)
	if errors.Is(err, github.ErrAlreadyExists) {
		rel, found, rerr := r.gh.ReleaseByTag(ctx, r.owner, r.repo, plan.Version)
		if rerr != nil {
			return false, rerr
		}
		if rec, ok, _ := RecordFromBody(rel.Body); found && ok && rec == d.record {
			return true, nil
		}
		return false, fmt.Errorf("%s: another release of the tag was published with other contents: %w", plan.Version, err)
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", plan.Version, err)
	}
	// The tag may have appeared between the check and the publish: read back where the
	// published release's tag is.
	if err := r.checkTag(ctx, plan.Version, d.commit, tagAfterPublish); err != nil {
		return true, err
	}
	return true, nil
}

// tagMoment is when a release tag is checked: before publishing (no tag, or the tag at the
// draft's commit) or after (the tag exists, at the draft's commit).
type tagMoment int

const (
	tagBeforePublish tagMoment = iota
	tagAfterPublish
)

// checkTag reads the version's tag and applies tagAt.
func (r remote) checkTag(ctx context.Context, version, commit string, when tagMoment) error {
	tag, found, err := r.gh.TagRef(ctx, r.owner, r.repo, version)
	if err != nil {
		return fmt.Errorf("%s: %w", version, err)
	}
	return tagAt(version, commit, tag.CommitSHA, found, when)
}

// tagAt is the rule: a model release is published only on the commit it built. Before
// publishing, the version's tag must be absent or at the draft's commit; after, it must be
// at the draft's commit. got is the tagged commit ("" when the tag names no commit).
func tagAt(version, want, got string, found bool, when tagMoment) error {
	switch {
	case when == tagBeforePublish && !found:
		return nil
	case found && got == want:
		return nil
	case when == tagBeforePublish:
		return fmt.Errorf("%s: tag %s already exists at %s, not at the draft's commit %.12s, and GitHub would publish the release on the tag's commit; "+
			"the draft stays unpublished: delete the stray tag if nothing was released from it and rerun, or release this generation under a new number",
			version, version, orNoCommit(got), want)
	case !found:
		return fmt.Errorf("%s: the published release has no tag %s on reading back; check the release on GitHub before any upload", version, version)
	default:
		return fmt.Errorf("%s: the published release's tag %s points at %s, not at the draft's commit %.12s (the tag existed before publishing); "+
			"the upload workflow refuses this release: turn it back into a draft, delete the tag, and rerun",
			version, version, orNoCommit(got), want)
	}
}

func orNoCommit(sha string) string {
	if sha == "" {
		return "no commit"
	}
	return fmt.Sprintf("%.12s", sha)
}
