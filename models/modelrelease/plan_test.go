package modelrelease

import (
	"slices"
	"testing"

	"dagger/shipyard/models"
	"dagger/shipyard/models/modelenv"
)

func TestDecide(t *testing.T) {
	ours := modelenv.Digests{Fingerprint: digest('f'), Tree: digest('t')}
	rec := func(version, fp string) *Record {
		return &Record{Version: version, Upstream: "1.31.5", Fingerprint: fp, Tree: digest('t')}
	}
	base := Inputs{Package: "cloudcoil.models.kubernetes", Upstream: "1.31.5", Digests: ours, Start: "main1", ChecksPassed: true}
	type want struct {
		version      string
		reused       bool
		action       models.PublishAction
		unchanged    bool
		push         bool
		createBranch bool
		parent       string
		draftID      int64 // 0: create
		deletes      []int64
		latest       string
	}
	tests := []struct {
		name  string
		in    func(Inputs) Inputs
		state Facts
		want  want
	}{
		{
			name:  "first release of an upstream",
			state: Facts{Main: "main1"},
			want:  want{version: "1.31.5.0", action: models.Draft, push: true, createBranch: true, parent: "main1", latest: "true"},
		},
		{
			name: "identical to the last published release: nothing",
			state: Facts{Main: "main1",
				Releases:   []ReleaseInfo{{ID: 1, Tag: "1.31.5.0"}},
				Branch:     BranchFacts{Exists: true, Head: "b1", Record: rec("1.31.5.0", digest('f'))},
				LastRecord: rec("1.31.5.0", digest('f'))},
			want: want{version: "1.31.5.0", action: models.Nothing, unchanged: true, latest: "true"},
		},
		{
			name: "a changed template gives the next packaging revision, numerically",
			state: Facts{Main: "main1",
				Releases:   []ReleaseInfo{{ID: 1, Tag: "1.31.5.9"}},
				PyPI:       []string{"1.31.5.10"},
				Branch:     BranchFacts{Exists: true, Head: "b1", Record: rec("1.31.5.10", digest('e'))},
				LastRecord: rec("1.31.5.10", digest('e'))},
			want: want{version: "1.31.5.11", action: models.Draft, push: true, parent: "b1", latest: "true"},
		},
		{
			name: "a record of an older release does not make the newest unchanged",
			state: Facts{Main: "main1",
				Releases:   []ReleaseInfo{{ID: 1, Tag: "1.31.5.0"}, {ID: 2, Tag: "1.31.5.1"}},
				LastRecord: rec("1.31.5.0", digest('f'))},
			want: want{version: "1.31.5.2", action: models.Draft, push: true, createBranch: true, parent: "main1", latest: "true"},
		},
		{
			name: "a draft reservation is reused and duplicates removed, oldest kept",
			state: Facts{Main: "main1",
				Releases: []ReleaseInfo{{ID: 1, Tag: "1.31.5.0"}, {ID: 9, Tag: "1.31.5.1", Draft: true, Target: "b2"}, {ID: 7, Tag: "1.31.5.1", Draft: true, Target: "b1"}},
				Branch:   BranchFacts{Exists: true, Head: "b2", Record: rec("1.31.5.1", digest('f'))}},
			want: want{version: "1.31.5.1", reused: true, action: models.Draft, push: false, parent: "b2", draftID: 7, deletes: []int64{9}, latest: "true"},
		},
		{
			name: "the branch head's unpublished record reserves its version",
			state: Facts{Main: "main1",
				Releases: []ReleaseInfo{{ID: 1, Tag: "1.31.5.0"}},
				Branch:   BranchFacts{Exists: true, Head: "b2", Record: rec("1.31.5.1", digest('e'))}},
			want: want{version: "1.31.5.1", reused: true, action: models.Draft, push: true, parent: "b2", latest: "true"},
		},
		{
			name: "a yanked PyPI version and a git tag are taken too",
			state: Facts{Main: "main1",
				Tags: []string{"1.31.5.3", "v0.1.0"},
				PyPI: []string{"1.31.5.4", "1.32.1.0"}},
			want: want{version: "1.31.5.5", action: models.Draft, push: true, createBranch: true, parent: "main1", latest: "false"},
		},
		{
			name:  "main advanced: stop before pushing",
			state: Facts{Main: "main2"},
			want:  want{version: "1.31.5.0", action: models.Stop, push: true, createBranch: true, parent: "main1", latest: "true"},
		},
		{
			name:  "a dry run writes nothing, even with publish",
			in:    func(in Inputs) Inputs { in.DryRun, in.Publish = true, true; return in },
			state: Facts{Main: "main1"},
			want:  want{version: "1.31.5.0", action: models.DryRun, push: true, createBranch: true, parent: "main1", latest: "true"},
		},
		{
			name:  "AUTO_PUBLISH_MODELS publishes",
			in:    func(in Inputs) Inputs { in.AutoPublish = true; return in },
			state: Facts{Main: "main1"},
			want:  want{version: "1.31.5.0", action: models.Publish, push: true, createBranch: true, parent: "main1", latest: "true"},
		},
		{
			name:  "failed checks stop",
			in:    func(in Inputs) Inputs { in.ChecksPassed, in.Publish = false, true; return in },
			state: Facts{Main: "main1"},
			want:  want{version: "1.31.5.0", action: models.Stop, push: true, createBranch: true, parent: "main1", latest: "true"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base
			if tt.in != nil {
				in = tt.in(in)
			}
			p, err := Decide(in, tt.state)
			if err != nil {
				t.Fatal(err)
			}
			got := want{version: p.Version, reused: p.ReusedDraft, action: p.Decision.Action, unchanged: p.Unchanged,
				push: p.Push, createBranch: p.CreateBranch, parent: p.Parent, deletes: p.DeleteDrafts, latest: p.MakeLatest}
			if p.Draft != nil {
				got.draftID = p.Draft.ID
			}
			if got.version != tt.want.version || got.reused != tt.want.reused || got.action != tt.want.action ||
				got.unchanged != tt.want.unchanged || got.push != tt.want.push || got.createBranch != tt.want.createBranch ||
				got.parent != tt.want.parent || got.draftID != tt.want.draftID || !slices.Equal(got.deletes, tt.want.deletes) ||
				got.latest != tt.want.latest {
				t.Errorf("plan %+v\nwant %+v\n%s", got, tt.want, p.Text())
			}
			if p.Branch != "release-1.31" || p.Record.Version != p.Version || p.Record.Fingerprint != ours.Fingerprint {
				t.Errorf("branch %s, record %+v", p.Branch, p.Record)
			}
		})
	}
}

func TestDecideRefusesMalformedInputs(t *testing.T) {
	// The runner names the step that decides; Decide says only what is wrong.
	for _, tc := range []struct {
		in   Inputs
		want string
	}{
		{Inputs{Upstream: "1.31", Digests: modelenv.Digests{Fingerprint: digest('f')}}, `upstream "1.31" is not X.Y.Z`},
		{Inputs{Upstream: "1.31.5", Digests: modelenv.Digests{Fingerprint: "sha256:short"}}, `fingerprint "sha256:short" is not sha256:<64 hex>`},
	} {
		if _, err := Decide(tc.in, Facts{}); err == nil || err.Error() != tc.want {
			t.Errorf("Decide(%+v) err = %v, want %q", tc.in, err, tc.want)
		}
	}
	// Two drafts of the version to reuse are collapsed, so allocation never fails on them.
	st := Facts{Releases: []ReleaseInfo{{ID: 2, Tag: "1.31.5.0", Draft: true}, {ID: 3, Tag: "v1.31.5.0", Draft: true}}}
	p, err := Decide(Inputs{Upstream: "1.31.5", Digests: modelenv.Digests{Fingerprint: digest('f')}}, st)
	if err != nil || p.Version != "1.31.5.0" || p.Draft == nil || p.Draft.ID != 2 || !slices.Equal(p.DeleteDrafts, []int64{3}) {
		t.Errorf("duplicate drafts: %+v, %v", p, err)
	}
}

func TestLastPublished(t *testing.T) {
	got, ok := LastPublished("1.31.5", []string{"1.31.5.9", "v1.31.5.10", "1.31.6.0", "1.31.5", "nightly", "1.31.5.02"})
	if !ok || got != "1.31.5.10" {
		t.Errorf("LastPublished = %s, %v", got, ok)
	}
	if _, ok := LastPublished("1.30.0", []string{"1.31.5.0"}); ok {
		t.Error("found a release of another upstream")
	}
}
