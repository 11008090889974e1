package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"dagger/shipyard/supplychain/wire"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// StillLatest is asked immediately before latest moves; the release flow
// rechecks there that no higher release was published since the plan.
type StillLatest func(ctx context.Context) (bool, error)

// SkippedTag and ApplyReport are the wire's: what apply-tags prints.
type SkippedTag = wire.SkippedTag

type ApplyReport = wire.ApplyReport

// ConcurrentTagError reports an immutable tag that changed between the plan
// and ApplyTags: another publisher is at work.
type ConcurrentTagError struct {
	Image   string
	Tag     string
	Planned string // the digest the plan saw; empty if absent
	Found   string // the digest found now; empty if absent
}

func (e *ConcurrentTagError) Error() string {
	return fmt.Sprintf("tag %s of %s changed since the plan (planned %s, now %s): another publisher is at work",
		e.Tag, e.Image, orAbsent(e.Planned), orAbsent(e.Found))
}

func orAbsent(d string) string {
	if d == "" {
		return "absent"
	}
	return d
}

// ApplyTags points the plan's tags at digest in repo. Immediately before
// writing, it re-resolves the plan's immutable tags and dev, and writes nothing
// if any changed since the plan. latest is written last, and only if stillLatest
// says so right before; if it says no, latest is skipped and reported, not an
// error. A plan that moves or creates latest needs a stillLatest. Likewise a
// plan that moves or creates dev needs WithStillNewest, asked right before dev is
// written about the digest dev was found on (none when absent).
//
// Registries have no compare-and-swap for tags, so a publisher that writes
// between the recheck and the write (a window of one request) is not seen;
// the release workflow serialises releases for that.
func ApplyTags(ctx context.Context, repo, digest string, plan Tagging, auth Auth, stillLatest StillLatest, opts ...Option) (ApplyReport, error) {
	report, err := applyTags(ctx, repo, digest, plan, auth, stillLatest, opts)
	if err != nil {
		return report, auth.Scrub(fmt.Errorf("apply tags to %s@%s: %w", repo, digest, err))
	}
	return report, nil
}

func applyTags(ctx context.Context, repo, digest string, plan Tagging, auth Auth, stillLatest StillLatest, opts []Option) (ApplyReport, error) {
	report := ApplyReport{Image: repo, Digest: digest}
	if err := checkPlan(repo, digest, plan); err != nil {
		return report, err
	}
	rc, err := rechecksFor(plan, stillLatest, opts)
	if err != nil {
		return report, err
	}
	rechecked, writes := planShape(plan)
	if !writes && len(rechecked) == 0 {
		report.Kept = append(report.Kept, plan.Actions...)
		return report, nil
	}
	r, c, err := connect(parseRepository, repo, auth, opts)
	if err != nil {
		return report, err
	}
	ref := r.Digest(digest)
	var target remote.Taggable
	if writes {
		// Fetched first, so the recheck below is the last read before writing.
		desc, err := c.puller.Get(ctx, ref)
		if err != nil {
			return report, fmt.Errorf("fetch the manifest of %s (push it first): %w", ref, err)
		}
		target = desc
	}

	current, err := c.resolve(ctx, r, rechecked)
	if err != nil {
		return report, fmt.Errorf("recheck tags: %w", err)
	}
	actions, err := Recheck(repo, digest, plan.Actions, current)
	if err != nil {
		return report, err
	}
	err = c.writeTags(ctx, r, target, actions, current, rc, &report)
	return report, err
}

// writeTags carries out the rechecked actions in order, each recorded in report as kept,
// skipped (its recheck said no) or written; it stops at the first failure. current is
// what the tags were found on right before.
func (c *client) writeTags(ctx context.Context, r name.Repository, target remote.Taggable, actions []TagAction, current map[string]string, rc rechecks, report *ApplyReport) error {
	for _, a := range actions {
		if a.Action == ActionKeep {
			report.Kept = append(report.Kept, a)
			continue
		}
		skip, why, err := rc.skip(ctx, a, current[a.Tag])
		if err != nil {
			return err
		}
		if skip {
			report.Skipped = append(report.Skipped, SkippedTag{Tag: a.Tag, Reason: why})
			continue
		}
		if err := c.pusher.Put(ctx, r.Tag(a.Tag), target); err != nil {
			return fmt.Errorf("write tag %s: %w", a.Tag, err)
		}
		report.Written = append(report.Written, a)
	}
	return nil
}

// rechecks are what ApplyTags asks right before a moving tag is written: whether the
// release is still the highest (latest) and the commit still the newest on dev (dev).
type rechecks struct {
	stillLatest StillLatest
	stillNewest StillNewest
}

// rechecksFor gathers the rechecks of a plan: stillLatest, and WithStillNewest among
// opts. A plan that sets latest, or moves dev, without its recheck is refused.
func rechecksFor(plan Tagging, stillLatest StillLatest, opts []Option) (rechecks, error) {
	rc := rechecks{stillLatest: stillLatest}
	for _, o := range opts {
		var cfg config
		o(&cfg)
		if cfg.stillNewest != nil {
			rc.stillNewest = cfg.stillNewest
		}
	}
	if rc.stillLatest == nil && slices.ContainsFunc(plan.Actions, func(a TagAction) bool { return a.Tag == TagLatest && a.Action != ActionKeep }) {
		return rc, errors.New("the plan sets latest but no stillLatest check was given")
	}
	if rc.stillNewest == nil && slices.ContainsFunc(plan.Actions, writesDev) {
		return rc, errors.New("the plan writes dev but no recheck of the commit order on dev was given")
	}
	return rc, nil
}

// writesDev is whether a moves or creates dev.
func writesDev(a TagAction) bool { return a.Tag == TagDev && a.Action != ActionKeep }

// skip asks the recheck of a's tag, where it has one, and says whether a is left
// unwritten and why: latest that is no longer the highest release, dev that would move
// off a newer commit, or be created or moved for a commit that is not on dev. found is
// the digest the tag was found on right before (empty when absent).
func (rc rechecks) skip(ctx context.Context, a TagAction, found string) (bool, string, error) {
	switch {
	case a.Tag == TagLatest:
		ok, err := rc.stillLatest(ctx)
		if err != nil {
			return false, "", fmt.Errorf("recheck latest: %w", err)
		}
		if !ok {
			return true, "no longer the highest release: latest left " + leftOn(a), nil
		}
	case writesDev(a):
		ok, why, err := rc.stillNewest(ctx, found)
		if err != nil {
			return false, "", fmt.Errorf("recheck dev: %w", err)
		}
		if !ok {
			return true, why, nil
		}
	}
	return false, "", nil
}

// planShape lists the tags the plan rechecks right before writing (its immutable tags,
// and dev when it writes dev) and says whether it writes any tag.
func planShape(plan Tagging) (rechecked []string, writes bool) {
	for _, a := range plan.Actions {
		if a.Class.Immutable() || writesDev(a) {
			rechecked = append(rechecked, a.Tag)
		}
		writes = writes || a.Action != ActionKeep
	}
	return rechecked, writes
}

// Recheck decides, from the tags read right before writing (current: tag → digest, absent
// when missing), whether the planned actions still hold: an immutable tag, or dev, found
// where the plan left it passes; one another run already put on digest is kept
// (converged); anything else is a ConcurrentTagError and nothing is written. dev moved by
// a newer commit's run after the plan fails here, so it never moves back.
func Recheck(repo, digest string, planned []TagAction, current map[string]string) ([]TagAction, error) {
	var changed []error
	actions := slices.Clone(planned)
	for i, a := range actions {
		if !a.Class.Immutable() && !writesDev(a) {
			continue
		}
		found := current[a.Tag]
		want := ""
		switch a.Action {
		case ActionKeep:
			want = digest
		case ActionMove:
			want = a.From
		}
		switch {
		case found == want:
		case found == digest:
			// Another run already wrote what we meant to: converged.
			actions[i].Action, actions[i].From = ActionKeep, ""
		default:
			changed = append(changed, &ConcurrentTagError{Image: repo, Tag: a.Tag, Planned: want, Found: found})
		}
	}
	if len(changed) > 0 {
		return nil, fmt.Errorf("nothing written: %w", errors.Join(changed...))
	}
	return actions, nil
}

func leftOn(a TagAction) string {
	if a.From == "" {
		return "absent"
	}
	return "on " + a.From
}

// checkPlan validates a plan that may have travelled as JSON from another
// job: it must be for this image and digest, and obey the tag rules.
func checkPlan(repo, digest string, plan Tagging) error {
	if err := checkDigest(digest); err != nil {
		return err
	}
	if plan.Image != repo || plan.Digest != digest {
		return fmt.Errorf("the plan is for %s@%s", plan.Image, plan.Digest)
	}
	seen := make(map[string]bool, len(plan.Actions))
	for _, a := range plan.Actions {
		if seen[a.Tag] {
			return fmt.Errorf("the plan names tag %s twice", a.Tag)
		}
		seen[a.Tag] = true
		class, err := ClassifyTag(a.Tag)
		if err != nil {
			return err
		}
		if class != a.Class {
			return fmt.Errorf("the plan gives tag %s class %s; it is %s", a.Tag, a.Class, class)
		}
		switch a.Action {
		case ActionCreate, ActionKeep:
		case ActionMove:
			if class.Immutable() {
				return &ImmutableTagError{Image: repo, Tag: a.Tag, Class: class, Published: a.From, Wanted: digest}
			}
		default:
			return fmt.Errorf("the plan has unknown action %q for tag %s", a.Action, a.Tag)
		}
	}
	return nil
}
