package versions

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/reponame"
	"dagger/shipyard/models/upstreams"
)

// How far to page through releases.
//
// GitHub lists a repository's releases newest first (by creation). A project publishes the
// patches of one minor line in order, so every patch newer than the version tracked for a
// line was created after that version and is listed before it. Once the listing has shown,
// for every tracked line, its tracked version or an older patch of that line, no later page
// can hold a newer patch of a tracked line, and reading stops after that page. In steady
// state the tracked versions are recent and this is the first page.
//
// The stop is also the point past which nothing is "newer than what is tracked" in the
// sense that matters for edits. Proposals (a minor above the highest tracked line) are
// taken from the pages read: a newer line shows up before the tracked patch unless its
// releases all predate it by more than a page, and by then the line has newer releases
// listed earlier. A line whose tracked version never appears (a release deleted, a tag
// without a release) makes the listing read to its end, bounded by MaxReleasePages.

// lineReach is what one integration still waits for: its tracked lines whose tracked
// version (or an older patch) has not been listed yet.
type lineReach struct {
	integration upstreams.Integration
	pending     map[upstreams.Line]upstreams.Version
}

// reach decides when the listing of one repository may stop.
type reach []lineReach

func newReach(ins []*upstreams.Integration) (reach, error) {
	var out reach
	for _, in := range ins {
		matrix, err := in.Matrix()
		if err != nil {
			return nil, err
		}
		lr := lineReach{integration: *in, pending: map[upstreams.Line]upstreams.Version{}}
		for _, v := range matrix {
			lr.pending[v.Line()] = v
		}
		out = append(out, lr)
	}
	return out, nil
}

// see takes one page and reports whether every tracked line of every integration has now
// been reached. Drafts and pre-releases say nothing about where the final releases are.
func (rc reach) see(page []upstreams.Release) bool {
	done := true
	for _, lr := range rc {
		for _, rel := range page {
			if rel.Draft || rel.Prerelease {
				continue
			}
			v, ok := upstreams.ReleaseVersion(lr.integration, rel.Tag)
			if !ok {
				continue
			}
			if tracked, ok := lr.pending[v.Line()]; ok && v.Compare(tracked) <= 0 {
				delete(lr.pending, v.Line())
			}
		}
		done = done && len(lr.pending) == 0
	}
	return done
}

// RepositoryScan is what discovery read of one upstream repository.
type RepositoryScan struct {
	Repository   string   `json:"repository"`
	Integrations []string `json:"integrations"`
	Pages        int      `json:"pages"`
	Releases     int      `json:"releases"`
	// Complete is false when the page limit stopped the listing before every tracked
	// version was reached.
	Complete bool `json:"complete"`
}

// discover lists the releases of each upstream repository once (integrations may share
// one) and returns the final releases of each integration, as upstreams.Candidates does.
// Requests are sent one after another, as GitHub asks of clients, to stay clear of its
// secondary rate limits.
func (r *modelVersionsState) discover(ctx context.Context, file *upstreams.File) (map[string][]upstreams.Version, error) {
	byRepo := map[string][]*upstreams.Integration{}
	for _, name := range file.Names() {
		in := file.Integrations[name]
		key := strings.ToLower(in.Repository) // GitHub names are case-insensitive
		byRepo[key] = append(byRepo[key], in)
	}
	repos := make([]string, 0, len(byRepo))
	for k := range byRepo {
		repos = append(repos, k)
	}
	sort.Strings(repos)

	found := map[string][]upstreams.Version{}
	for _, key := range repos {
		ins := byRepo[key]
		rc, err := newReach(ins)
		if err != nil {
			return nil, err
		}
		repo, err := reponame.Parse(ins[0].Repository)
		if err != nil {
			return nil, err // upstreams.Read has checked it; kept so a bad name never reaches GitHub
		}
		owner, name := repo.Owner, repo.Repo
		var releases []upstreams.Release
		pages, complete, err := github.ReleasePages(ctx, r.gh, owner, name, r.opts.ReleasesPerPage, r.opts.MaxReleasePages, func(page []github.Release) bool {
			converted := make([]upstreams.Release, 0, len(page))
			for _, rel := range page {
				converted = append(converted, upstreams.Release{Tag: rel.TagName, Draft: rel.Draft, Prerelease: rel.Prerelease})
			}
			releases = append(releases, converted...)
			return !rc.see(converted)
		})
		names := make([]string, 0, len(ins))
		for _, in := range ins {
			names = append(names, in.Name)
		}
		if err != nil {
			if errors.Is(err, github.ErrNotFound) {
				// One wrong repository name stops only its integrations.
				for _, name := range names {
					r.discoveryProblems = append(r.discoveryProblems, upstreams.Problem{
						Integration: name, File: upstreams.FilePath,
						Problem: fmt.Sprintf("integrations.%s.repository %s: no such repository on GitHub", name, ins[0].Repository),
						Fix:     "fix the owner/name, or give the token read access to it",
					})
				}
				continue
			}
			return nil, fmt.Errorf("%s: integrations.%s: releases of %s: %w", upstreams.FilePath, strings.Join(names, ", "), ins[0].Repository, err)
		}
		r.report.Discovery = append(r.report.Discovery, RepositoryScan{
			Repository: ins[0].Repository, Integrations: names, Pages: pages, Releases: len(releases), Complete: complete,
		})
		if !complete {
			r.note("%s: stopped after %d pages of releases before reaching every tracked version; raise the page limit if an update seems missing", ins[0].Repository, pages)
		}
		for _, in := range ins {
			found[in.Name] = upstreams.Candidates(*in, releases)
		}
	}
	return found, nil
}
