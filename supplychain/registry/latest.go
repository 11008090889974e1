package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"dagger/shipyard/supplychain/wire"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// LatestImage, LatestMove and LatestReport are the wire's: what latest reads and prints.
type LatestImage = wire.LatestImage

type LatestMove = wire.LatestMove

// PlanLatest decides, for every image of a release, what pointing latest at its digest
// does, given where latest is now (repo → digest; absent when there is none). A release's
// images move together, so the plan covers all of them or fails: every target must have a
// valid digest and a repository of its own.
func PlanLatest(targets []LatestImage, current map[string]string) ([]LatestMove, error) {
	if len(targets) == 0 {
		return nil, errors.New("plan latest: no images")
	}
	seen := map[string]bool{}
	var problems []error
	moves := make([]LatestMove, 0, len(targets))
	for _, t := range targets {
		if strings.TrimSpace(t.Repo) == "" {
			problems = append(problems, errors.New("an image repository is empty"))
			continue
		}
		if seen[t.Repo] {
			problems = append(problems, fmt.Errorf("repository %s is named twice", t.Repo))
			continue
		}
		seen[t.Repo] = true
		if err := checkDigest(t.Digest); err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", t.Repo, err))
			continue
		}
		m := LatestMove{Repo: t.Repo, Digest: t.Digest}
		from, exists := current[t.Repo]
		switch {
		case !exists:
			m.Action = ActionCreate
		case from == t.Digest:
			m.Action = ActionKeep
		default:
			if err := checkDigest(from); err != nil {
				problems = append(problems, fmt.Errorf("%s: latest is on %w", t.Repo, err))
				continue
			}
			m.Action, m.From = ActionMove, from
		}
		moves = append(moves, m)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("plan latest: %w", errors.Join(problems...))
	}
	return moves, nil
}

type LatestReport = wire.LatestReport

// MoveLatest points the latest tag (the policy's, e.g. latest) at each target's digest in
// every repository or in none. It
// reads where latest is now, plans, fetches every manifest it may write (the targets and,
// for a roll back, the current ones), asks stillLatest once for the whole release right
// before the first write, then writes in order. When a write fails, the repositories
// already written get latest back where it was (or deleted, where there was none); the
// error says which could not be restored. A re-run after a failure starts again from the
// registry's state.
func MoveLatest(ctx context.Context, latest string, targets []LatestImage, auth Auth, stillLatest StillLatest, opts ...Option) (LatestReport, error) {
	report, err := moveLatest(ctx, latest, targets, auth, stillLatest, opts)
	if err != nil {
		return report, auth.Scrub(fmt.Errorf("move %s: %w", latest, err))
	}
	return report, nil
}

func moveLatest(ctx context.Context, latest string, targets []LatestImage, auth Auth, stillLatest StillLatest, opts []Option) (LatestReport, error) {
	var report LatestReport
	if latest == "" {
		return report, errors.New("the tag policy names no latest tag: this system publishes none")
	}
	if stillLatest == nil {
		return report, errors.New("no stillLatest check was given")
	}
	c, err := newClient(auth, newConfig(opts))
	if err != nil {
		return report, err
	}
	repos, current, err := c.readLatest(ctx, latest, targets)
	if err != nil {
		return report, err
	}
	moves, err := PlanLatest(targets, current)
	if err != nil {
		return report, err
	}
	report.Moves = moves
	var pending []LatestMove
	for _, m := range moves {
		if m.Action != ActionKeep {
			pending = append(pending, m)
		}
	}
	if len(pending) == 0 {
		return report, nil
	}
	// Every manifest is fetched before anything is written, so a missing one stops the
	// move with nothing changed, and a roll back needs no read.
	manifests, err := c.manifests(ctx, repos, pending)
	if err != nil {
		return report, err
	}
	ok, err := stillLatest(ctx)
	if err != nil {
		return report, fmt.Errorf("recheck latest: %w", err)
	}
	if !ok {
		report.Skipped = "no longer the highest release: " + latest + " left where it is in every image"
		return report, nil
	}
	for i, m := range pending {
		werr := c.pusher.Put(ctx, repos[m.Repo].Tag(latest), manifests[m.Repo+"@"+m.Digest])
		if werr == nil {
			report.Written = append(report.Written, m.Repo)
			continue
		}
		werr = fmt.Errorf("write %s of %s: %w", latest, m.Repo, werr)
		return report, c.rollBack(ctx, latest, &report, repos, pending[:i], manifests, werr)
	}
	return report, nil
}

// readLatest reads where the latest tag is in each target's repository (absent: not in
// current).
func (c *client) readLatest(ctx context.Context, latest string, targets []LatestImage) (map[string]name.Repository, map[string]string, error) {
	repos := make(map[string]name.Repository, len(targets))
	current := map[string]string{}
	for _, t := range targets {
		r, err := parseRepository(t.Repo, c.plainHTTP)
		if err != nil {
			return nil, nil, err
		}
		repos[t.Repo] = r
		found, err := c.resolve(ctx, r, []string{latest})
		if err != nil {
			return nil, nil, fmt.Errorf("read %s of %s: %w", latest, t.Repo, err)
		}
		if d, ok := found[latest]; ok {
			current[t.Repo] = d
		}
	}
	return repos, current, nil
}

// manifests fetches every manifest the moves point latest at, or back at, keyed
// repo@digest.
func (c *client) manifests(ctx context.Context, repos map[string]name.Repository, pending []LatestMove) (map[string]remote.Taggable, error) {
	out := map[string]remote.Taggable{}
	for _, m := range pending {
		for _, d := range []string{m.Digest, m.From} {
			if d == "" {
				continue
			}
			desc, err := c.puller.Get(ctx, repos[m.Repo].Digest(d))
			if err != nil {
				return nil, fmt.Errorf("fetch the manifest of %s@%s: %w", m.Repo, d, err)
			}
			out[m.Repo+"@"+d] = desc
		}
	}
	return out, nil
}

// rollBack puts latest back where it was in the images done already, after werr stopped
// the move, and records which were put back and which stay written.
func (c *client) rollBack(ctx context.Context, latest string, report *LatestReport, repos map[string]name.Repository, done []LatestMove, manifests map[string]remote.Taggable, werr error) error {
	var unrestored []error
	for _, d := range done {
		if err := c.restoreLatest(ctx, repos[d.Repo].Tag(latest), d, manifests); err != nil {
			unrestored = append(unrestored, fmt.Errorf("%s: %w", d.Repo, err))
			continue
		}
		report.RolledBack = append(report.RolledBack, d.Repo)
	}
	report.Written = nil
	for _, d := range done {
		if !slices.Contains(report.RolledBack, d.Repo) {
			report.Written = append(report.Written, d.Repo)
		}
	}
	if len(unrestored) > 0 {
		return fmt.Errorf("%w; %s could not be put back in %w: %s now differs between the images, re-run the step to finish the move", werr, latest, errors.Join(unrestored...), latest)
	}
	return fmt.Errorf("%w; %s was put back where it was in the images already written, so no image moved", werr, latest)
}

// restoreLatest points latest back at the move's From, or deletes it where it did not
// exist before.
func (c *client) restoreLatest(ctx context.Context, tag name.Tag, m LatestMove, manifests map[string]remote.Taggable) error {
	if m.From == "" {
		return c.pusher.Delete(ctx, tag)
	}
	return c.pusher.Put(ctx, tag, manifests[m.Repo+"@"+m.From])
}
