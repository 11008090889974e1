package modelrelease

import (
	"fmt"
	"sort"
	"strings"

	"dagger/shipyard/models"
	"dagger/shipyard/models/modelenv"
)

// ReleaseInfo is what a release run needs to know of one GitHub release.
type ReleaseInfo struct {
	ID     int64
	Tag    string
	Name   string
	Body   string
	Draft  bool
	Target string // target_commitish: for our drafts, the exact commit they pin
}

// BranchFacts is the release branch as a run found it.
type BranchFacts struct {
	Exists bool
	Head   string
	// Record is the release record at the head; nil when the head has none.
	Record *Record
}

// Facts is what GitHub and PyPI said when the run looked.
type Facts struct {
	Releases []ReleaseInfo
	Tags     []string // git tag names
	PyPI     []string // every version PyPI lists, yanked and file-less ones included
	Branch   BranchFacts
	Main     string // the head of main now
	// LastRecord is the record of the last published release of the run's upstream (from
	// its body, else the file at its tag); nil when there is none or it recorded none.
	LastRecord *Record
}

// Published lists every version that is taken: tags of published releases, git tags and
// PyPI versions. A published version is immutable, yanked or not.
func (s Facts) Published() []string {
	var out []string
	for _, r := range s.Releases {
		if !r.Draft {
			out = append(out, r.Tag)
		}
	}
	out = append(out, s.Tags...)
	return append(out, s.PyPI...)
}

// LastPublished is the highest published <upstream>.<packaging> of upstream, compared
// numerically; found is false before the first release of upstream.
func LastPublished(upstream string, published []string) (version string, found bool) {
	for _, p := range published {
		up, _, ok := modelenv.ParseVersion(p)
		if !ok || up != upstream {
			continue
		}
		p = strings.TrimPrefix(p, "v")
		if c, _ := modelenv.CompareVersions(p, version); !found || c > 0 {
			version, found = p, true
		}
	}
	return version, found
}

// Inputs are the run's own facts.
type Inputs struct {
	// Package is the project name, for the release body.
	Package string
	// Upstream is the selected upstream version X.Y.Z.
	Upstream string
	// Digests of the generation. Tree may be empty before the build; Fingerprint may not.
	Digests modelenv.Digests
	// Start is the commit of main the run generated from.
	Start string
	// ChecksPassed: generation, lint, type checks, tests and (once built) the artifact and
	// dependency checks passed.
	ChecksPassed bool
	DryRun       bool
	Publish      bool
	AutoPublish  bool
}

// Allocation is what a release run will do, and why.
type Allocation struct {
	Upstream    string
	Version     string
	ReusedDraft bool
	Branch      string
	// LastPublished is the last published version of the upstream ("" before the first).
	LastPublished string
	// Unchanged: the fingerprint equals the last published release's.
	Unchanged bool
	Decision  models.PublishDecision
	Record    Record
	// Push is true when the branch needs a new commit (its head does not record exactly
	// this release); the commit's parent is Parent, and CreateBranch says the branch does
	// not exist yet.
	Push         bool
	Parent       string
	CreateBranch bool
	// Draft is the draft of Version to update, nil when one must be created.
	Draft *ReleaseInfo
	// DeleteDrafts are further drafts of Version: GitHub allows duplicates, the oldest
	// is kept.
	DeleteDrafts []int64
	// MakeLatest is "true" when Version is above every published version, else "false".
	MakeLatest string
}

// Decide plans a release run. It allocates the version (models.Allocate over everything
// published, with the drafts and the release branch's unpublished record as
// reservations), compares the fingerprint with the last published release of the
// upstream, decides publication (models.Publication, with main advanced when its head is
// no longer Start) and what to write so that the branch head records this release and
// the draft of its version is pinned to it.
func Decide(in Inputs, st Facts) (Allocation, error) {
	if _, _, ok := modelenv.ParseVersion(in.Upstream + ".0"); !ok {
		return Allocation{}, fmt.Errorf("upstream %q is not X.Y.Z", in.Upstream)
	}
	if !digestForm.MatchString(in.Digests.Fingerprint) {
		return Allocation{}, fmt.Errorf("fingerprint %q is not sha256:<64 hex>", in.Digests.Fingerprint)
	}
	published := st.Published()
	drafts := map[string][]ReleaseInfo{}
	for _, r := range st.Releases {
		if r.Draft {
			tag := strings.TrimPrefix(r.Tag, "v")
			drafts[tag] = append(drafts[tag], r)
		}
	}
	var reservations []string
	for tag := range drafts {
		reservations = append(reservations, tag)
	}
	if rec := st.Branch.Record; rec != nil && rec.Upstream == in.Upstream && drafts[rec.Version] == nil {
		// The branch head's record reserves its version until it is published: a run
		// that pushed but has not written its draft yet still holds the number.
		reservations = append(reservations, rec.Version)
	}
	sort.Strings(reservations)
	version, reused, err := models.Allocate(in.Upstream, published, reservations)
	if err != nil {
		return Allocation{}, err // "allocate: …"; the step that decides is named by the runner
	}
	branch, err := models.ReleaseBranch(version)
	if err != nil {
		return Allocation{}, err // "release branch: …"
	}
	p := Allocation{
		Upstream: in.Upstream, Version: version, ReusedDraft: reused, Branch: branch,
		Record:     Record{Version: version, Upstream: in.Upstream, Fingerprint: in.Digests.Fingerprint, Tree: in.Digests.Tree},
		MakeLatest: makeLatest(version, published),
	}
	p.LastPublished, _ = LastPublished(in.Upstream, published)
	if last := st.LastRecord; last != nil && p.LastPublished != "" && last.Version == p.LastPublished {
		p.Unchanged = last.Fingerprint == in.Digests.Fingerprint
	}
	p.Decision = models.Publication(models.PublishInputs{
		DryRun: in.DryRun, PublishFlag: in.Publish, AutoPublish: in.AutoPublish,
		ChecksPassed:         in.ChecksPassed,
		MainAdvanced:         in.Start != "" && st.Main != in.Start,
		FingerprintUnchanged: p.Unchanged,
	})

	if p.Unchanged {
		// Nothing to write: the plan names the release that already has this content.
		p.Version, p.ReusedDraft, p.Record = p.LastPublished, false, *st.LastRecord
		p.Branch, _ = models.ReleaseBranch(p.Version)
		return p, nil
	}

	head := st.Branch.Record
	p.Push = !st.Branch.Exists || head == nil || *head != p.Record
	switch {
	case st.Branch.Exists:
		p.Parent = st.Branch.Head
	default:
		p.Parent, p.CreateBranch = in.Start, true
	}
	if own := drafts[version]; len(own) > 0 {
		sort.Slice(own, func(i, j int) bool { return own[i].ID < own[j].ID })
		keep := own[0]
		p.Draft = &keep
		for _, d := range own[1:] {
			p.DeleteDrafts = append(p.DeleteDrafts, d.ID)
		}
	}
	return p, nil
}

// makeLatest marks a release latest only when it is above everything published, so a
// packaging revision of an older minor line never becomes the repository's latest.
func makeLatest(version string, published []string) string {
	for _, p := range published {
		if c, ok := modelenv.CompareVersions(version, p); ok && c <= 0 {
			return "false"
		}
	}
	return "true"
}

// DraftUpToDate reports whether a draft already says what the plan wants: the version as
// tag and name, the body with this record, pinned to commit.
func (p Allocation) DraftUpToDate(d ReleaseInfo, commit, body string) bool {
	return d.Draft && d.Tag == p.Version && d.Name == p.Version && d.Target == commit && d.Body == body
}

// Text renders the plan for the run's log and the dry run's answer.
func (p Allocation) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "upstream:        %s\n", p.Upstream)
	fmt.Fprintf(&b, "version:         %s", p.Version)
	switch {
	case p.Unchanged:
		b.WriteString(" (already released with this fingerprint)")
	case p.ReusedDraft:
		b.WriteString(" (reusing its draft reservation)")
	}
	b.WriteString("\n")
	last := p.LastPublished
	if last == "" {
		last = "none"
	}
	fmt.Fprintf(&b, "last published:  %s\n", last)
	fmt.Fprintf(&b, "fingerprint:     %s", p.Record.Fingerprint)
	if p.Unchanged {
		b.WriteString(" (unchanged)")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "branch:          %s", p.Branch)
	switch {
	case p.Unchanged:
	case p.CreateBranch:
		b.WriteString(" (new, from main)")
	case !p.Push:
		b.WriteString(" (head already records this release)")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "decision:        %s: %s\n", p.Decision.Action, p.Decision.Reason)
	return b.String()
}
