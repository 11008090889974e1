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

// ApplyTags points the plan's tags at digest in repo, under the policy p it was planned
// with. Immediately before writing, it re-resolves the plan's immutable tags and the
// branch tag, and writes nothing if any changed since the plan. The latest tag is written
// last, and only if stillLatest says so right before; if it says no, it is skipped and
// reported, not an error. A plan that moves or creates the latest tag needs a stillLatest.
// Likewise a plan that moves or creates the branch tag needs WithStillNewest, asked right
// before it is written about the digest it was found on (none when absent).
//
// Registries have no compare-and-swap for tags, so a publisher that writes
// between the recheck and the write (a window of one request) is not seen;
// the release workflow serialises releases for that.
func ApplyTags(ctx context.Context, p TagPolicy, repo, digest string, plan Tagging, auth Auth, stillLatest StillLatest, opts ...Option) (ApplyReport, error) {
	report, err := applyTags(ctx, p, repo, digest, plan, auth, stillLatest, opts)
	if err != nil {
		return report, auth.Scrub(fmt.Errorf("apply tags to %s@%s: %w", repo, digest, err))
	}
	return report, nil
}

func applyTags(ctx context.Context, p TagPolicy, repo, digest string, plan Tagging, auth Auth, stillLatest StillLatest, opts []Option) (ApplyReport, error) {
	report := ApplyReport{Image: repo, Digest: digest}
	if err := checkPlan(p, repo, digest, plan); err != nil {
		return report, err
	}
	rc, err := rechecksFor(p, plan, stillLatest, opts)
	if err != nil {
		return report, err
	}
	rechecked, writes := planShape(p, plan)
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
	actions, err := Recheck(p, repo, digest, plan.Actions, current)
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
// release is still the highest (the latest tag) and the commit still the newest on the
// branch (the branch tag).
type rechecks struct {
	policy      TagPolicy
	stillLatest StillLatest
	stillNewest StillNewest
}

// rechecksFor gathers the rechecks of a plan: stillLatest, and WithStillNewest among
// opts. A plan that sets the latest tag, or moves the branch tag, without its recheck is
// refused.
func rechecksFor(p TagPolicy, plan Tagging, stillLatest StillLatest, opts []Option) (rechecks, error) {
	rc := rechecks{policy: p, stillLatest: stillLatest}
	for _, o := range opts {
		var cfg config
		o(&cfg)
		if cfg.stillNewest != nil {
			rc.stillNewest = cfg.stillNewest
		}
	}
	if rc.stillLatest == nil && slices.ContainsFunc(plan.Actions, func(a TagAction) bool { return writesLatest(p, a) }) {
		return rc, fmt.Errorf("the plan sets %s but no stillLatest check was given", p.Latest)
	}
	if rc.stillNewest == nil && slices.ContainsFunc(plan.Actions, func(a TagAction) bool { return writesBranchTag(p, a) }) {
		return rc, fmt.Errorf("the plan writes %s but no recheck of the commit order on %s was given", p.BranchTag, p.Branch)
	}
	return rc, nil
}

// writesLatest is whether a moves or creates the policy's latest tag.
func writesLatest(p TagPolicy, a TagAction) bool {
	return p.Latest != "" && a.Tag == p.Latest && a.Action != ActionKeep
}

// writesBranchTag is whether a moves or creates the policy's branch tag.
func writesBranchTag(p TagPolicy, a TagAction) bool {
	return p.BranchTag != "" && a.Tag == p.BranchTag && a.Action != ActionKeep
}

// skip asks the recheck of a's tag, where it has one, and says whether a is left
// unwritten and why: the latest tag when no longer the highest release, the branch tag
// when it would move off a newer commit, or be created or moved for a commit that is not
// on the branch. found is the digest the tag was found on right before (empty when
// absent).
func (rc rechecks) skip(ctx context.Context, a TagAction, found string) (bool, string, error) {
	switch {
	case writesLatest(rc.policy, a):
		ok, err := rc.stillLatest(ctx)
		if err != nil {
			return false, "", fmt.Errorf("recheck %s: %w", a.Tag, err)
		}
		if !ok {
			return true, "no longer the highest release: " + a.Tag + " left " + leftOn(a), nil
		}
	case writesBranchTag(rc.policy, a):
		ok, why, err := rc.stillNewest(ctx, found)
		if err != nil {
			return false, "", fmt.Errorf("recheck %s: %w", a.Tag, err)
		}
		if !ok {
			return true, why, nil
		}
	}
	return false, "", nil
}

// planShape lists the tags the plan rechecks right before writing (its immutable tags,
// and the branch tag when it writes it) and says whether it writes any tag.
func planShape(p TagPolicy, plan Tagging) (rechecked []string, writes bool) {
	for _, a := range plan.Actions {
		if a.Class.Immutable() || writesBranchTag(p, a) {
			rechecked = append(rechecked, a.Tag)
		}
		writes = writes || a.Action != ActionKeep
	}
	return rechecked, writes
}

// Recheck decides, from the tags read right before writing (current: tag → digest, absent
// when missing), whether the planned actions still hold: an immutable tag, or the branch
// tag, found where the plan left it passes; one another run already put on digest is kept
// (converged); anything else is a ConcurrentTagError and nothing is written. A branch tag
// moved by a newer commit's run after the plan fails here, so it never moves back.
func Recheck(p TagPolicy, repo, digest string, planned []TagAction, current map[string]string) ([]TagAction, error) {
	var changed []error
	actions := slices.Clone(planned)
	for i, a := range actions {
		if !a.Class.Immutable() && !writesBranchTag(p, a) {
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
// job: it must be for this image and digest, and obey the tag rules of p.
func checkPlan(p TagPolicy, repo, digest string, plan Tagging) error {
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
		class, err := ClassifyTag(p, a.Tag)
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
