package releasegate

import (
	"context"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
)

// A release is rehearsed for a commit before its tag exists: every rule but the tag's own
// signature is checked at that commit, through the API, and the plan says what is left.
func TestReleasePlanRehearsesACommitBeforeTheTag(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		seed      seedOpts
		change    func(tc *teskCore)
		commit    func(tc *teskCore) string
		wantRules []int
		wantText  string
	}{
		{name: "prepared, not tagged", seed: seedOpts{noTag: true}, wantText: "rehearsal: tag v0.11.0 is not pushed yet"},
		{name: "tagged on that commit: a full check", seed: seedOpts{}},
		{name: "tagged on another commit", seed: seedOpts{noTag: true}, change: func(tc *teskCore) {
			tc.repo.AnnotatedTag(tc.tag, tc.mainBefore, githubsim.ValidSignature())
		}, wantRules: []int{2}, wantText: "exists already, on commit"},
		{name: "notes missing at the commit", seed: seedOpts{noTag: true, noFiles: true}, wantRules: []int{4, 5}, wantText: "does not exist at commit"},
		{name: "not on main yet", seed: seedOpts{noTag: true}, change: func(tc *teskCore) {
			tc.repo.SetBranch("main", tc.mainBefore)
		}, wantRules: []int{3}, wantText: "is not on main"},
		{name: "CI not run for it", seed: seedOpts{noTag: true}, commit: func(tc *teskCore) string { return tc.mainBefore },
			wantRules: []int{4, 5, 6}, wantText: "CITATION.cff at commit"},
		{name: "released already", seed: seedOpts{noTag: true, published: []string{"v0.10.6", "v0.11.0"}}, wantRules: []int{7}, wantText: "exists already"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := seedTeskCore(t, tt.seed)
			if tt.change != nil {
				tt.change(tc)
			}
			commit := tc.sha
			if tt.commit != nil {
				commit = tt.commit(tc)
			}
			plan, err := Check(ctx, tc.client(t), testRepo, tc.tag, Config{Commit: commit})
			if tt.wantRules == nil {
				if err != nil {
					t.Fatal(err)
				}
				if plan.Commit != commit || !strings.Contains(strings.Join(plan.Warnings, "\n"), tt.wantText) {
					t.Errorf("plan %+v", plan)
				}
				return
			}
			violated, skipped, _ := rulesOf(t, err)
			if !slices.Equal(violated, tt.wantRules) || len(skipped) != 0 || !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("violated %v, skipped %v, want %v; %v", violated, skipped, tt.wantRules, err)
			}
		})
	}
	tc := seedTeskCore(t, seedOpts{noTag: true})
	if _, err := Check(ctx, tc.client(t), testRepo, tc.tag, Config{Commit: "main"}); err == nil || !strings.Contains(err.Error(), "not a full commit SHA") {
		t.Errorf("a branch name as --commit: %v", err)
	}
}

func TestCheckNext(t *testing.T) {
	notesAt := func(content string) func(string) FileFacts {
		return func(v string) FileFacts {
			return FileFacts{Path: NotesPath("v" + v), Found: content != "", Content: []byte(content)}
		}
	}
	cff := func(s string) FileFacts { return FileFacts{Path: CitationFile, Found: true, Content: []byte(s)} }
	tests := []struct {
		name      string
		citation  FileFacts
		notes     string
		released  []string
		wantRules []int
		released_ bool
		wantText  string
	}{
		{name: "prepared", citation: cff(validCitation("0.11.0")), notes: validNotes("0.11.0"), released: []string{"v0.10.6"}},
		{name: "released already: nothing to check", citation: cff(validCitation("0.10.6")), released: []string{"v0.10.6"}, released_: true},
		{name: "releases unknown: the files are checked", citation: cff(validCitation("0.10.6")), wantRules: []int{5}, wantText: "docs/releases/0.10.6.md does not exist"},
		{name: "no CITATION.cff", citation: FileFacts{Path: CitationFile}, wantRules: []int{4}},
		{name: "no version", citation: cff("title: x\n"), wantRules: []int{4}, wantText: "no top-level version"},
		{name: "no date", citation: cff("version: 0.11.0\n"), notes: validNotes("0.11.0"), wantRules: []int{4}, wantText: "CITATION.cff:1: no top-level date-released"},
		{name: "not a release version", citation: cff(validCitation("0.11.0-rc.1")), notes: validNotes("x"), wantRules: []int{1}},
		{name: "notes without intro", citation: cff(validCitation("0.11.0")), notes: "## Fixes\n\n- x (#1)\n", wantRules: []int{5}, wantText: "docs/releases/0.11.0.md:1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := CheckNext(tt.citation, notesAt(tt.notes), tt.released)
			var rules []int
			for _, v := range n.Violations {
				rules = append(rules, v.Rule)
			}
			if !slices.Equal(rules, tt.wantRules) || n.Released != tt.released_ {
				t.Fatalf("rules %v released %v; want %v %v: %+v", rules, n.Released, tt.wantRules, tt.released_, n)
			}
			text := n.Text()
			if !strings.Contains(text, tt.wantText) || (len(rules) > 0) != (n.Err() != nil) {
				t.Errorf("text %q lacks %q (err %v)", text, tt.wantText, n.Err())
			}
		})
	}
}
