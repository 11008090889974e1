package modelrelease

import (
	"context"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/models/modelenv"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// remote is the model repository on GitHub and its project on PyPI, as one run sees them.
type remote struct {
	gh          github.API
	owner, repo string
	main        string // the main branch's name
	pypi        *http.Client
	pypiURL     string
	project     string // the PyPI project name
}

// gather reads what a plan decides on: releases (drafts included, with their targets),
// git tags, PyPI versions, the release branch with its record, main's head, and the
// record of the last published release of upstream. It only reads.
func (r remote) gather(ctx context.Context, upstream, branch string) (Facts, error) {
	var st Facts
	releases, err := r.gh.PinnedReleases(ctx, r.owner, r.repo)
	if err != nil {
		return Facts{}, err
	}
	for _, rel := range releases {
		st.Releases = append(st.Releases, ReleaseInfo{
			ID: rel.ID, Tag: rel.TagName, Name: rel.Name, Body: rel.Body, Draft: rel.Draft, Target: rel.TargetCommitish,
		})
	}
	if st.Tags, err = r.gh.TagNames(ctx, r.owner, r.repo); err != nil {
		return Facts{}, err
	}
	if st.PyPI, err = modelenv.PyPIVersions(ctx, r.pypi, r.pypiURL, r.project); err != nil {
		return Facts{}, err
	}
	head, exists, err := r.gh.BranchHead(ctx, r.owner, r.repo, branch)
	if err != nil {
		return Facts{}, err
	}
	st.Branch = BranchFacts{Exists: exists, Head: head}
	if exists {
		if st.Branch.Record, err = r.recordAt(ctx, head, branch); err != nil {
			return Facts{}, err
		}
	}
	main, ok, err := r.gh.BranchHead(ctx, r.owner, r.repo, r.main)
	if err != nil {
		return Facts{}, err
	}
	if !ok {
		return Facts{}, fmt.Errorf("%s/%s has no branch %s", r.owner, r.repo, r.main)
	}
	st.Main = main
	if st.LastRecord, err = r.lastRecord(ctx, st, upstream); err != nil {
		return Facts{}, err
	}
	return st, nil
}

// recordAt reads the release record of a commit; nil when it has none. A record that is
// there but unreadable stops the run: it cannot be trusted to reserve or to compare.
func (r remote) recordAt(ctx context.Context, ref, name string) (*Record, error) {
	data, found, err := r.gh.FileAt(ctx, r.owner, r.repo, RecordPath, ref)
	if err != nil || !found {
		return nil, err
	}
	rec, err := ParseRecord(data)
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w; fix or remove the file on %s", RecordPath, name, err, name)
	}
	return &rec, nil
}

// lastRecord finds the record of the last published release of upstream: the marker in
// its GitHub release's body, else the record file at its tag. A release from before
// records has neither, and nil makes the run release one new packaging revision.
func (r remote) lastRecord(ctx context.Context, st Facts, upstream string) (*Record, error) {
	last, found := LastPublished(upstream, st.Published())
	if !found {
		return nil, nil
	}
	for _, rel := range st.Releases {
		if rel.Draft || strings.TrimPrefix(rel.Tag, "v") != last {
			continue
		}
		rec, ok, err := RecordFromBody(rel.Body)
		if err != nil {
			return nil, fmt.Errorf("release %s: %w", rel.Tag, err)
		}
		if ok && rec.Version == last {
			return &rec, nil
		}
	}
	for _, tag := range []string{last, "v" + last} {
		if !slices.Contains(st.Tags, tag) {
			continue
		}
		rec, err := r.recordAt(ctx, tag, "tag "+tag)
		if err != nil || rec == nil || rec.Version != last {
			return nil, err
		}
		return rec, nil
	}
	return nil, nil
}
