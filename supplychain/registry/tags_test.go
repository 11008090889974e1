package registry

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Distinct digests for the rules; their content does not matter.
var (
	digestA = "sha256:" + strings.Repeat("a", 64)
	digestB = "sha256:" + strings.Repeat("b", 64)
	digestC = "sha256:" + strings.Repeat("c", 64)
)

func TestClassifyTag(t *testing.T) {
	tests := []struct {
		tag     string
		want    TagClass
		wantErr bool
	}{
		{tag: "0.11.0", want: ClassVersion},
		{tag: "10.0.12", want: ClassVersion},
		{tag: "0.11.0rc1", want: ClassVersion},
		{tag: "0.11.0a2", want: ClassVersion},
		{tag: "0.11.0b10", want: ClassVersion},
		{tag: "sha-0123abc", want: ClassCommit},
		{tag: "sha-" + strings.Repeat("f", 40), want: ClassCommit},
		{tag: "latest", want: ClassMoving},
		{tag: "dev", want: ClassMoving},
		{tag: "v0.11.0", wantErr: true},     // the old form; no longer published
		{tag: "0.11", wantErr: true},        // not a release version
		{tag: "01.2.3", wantErr: true},      // one spelling per version
		{tag: "0.11.0-rc1", wantErr: true},  // not PEP 440's normal form
		{tag: "0.11.0rc", wantErr: true},    // pre-release without a number
		{tag: "sha-012345", wantErr: true},  // shorter than 7
		{tag: "sha-0123ABC", wantErr: true}, // git commits are lowercase
		{tag: "sha-" + strings.Repeat("f", 41), wantErr: true},
		{tag: "Latest", wantErr: true},
		{tag: "", wantErr: true},
		{tag: "main", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.tag, func(t *testing.T) {
			got, err := ClassifyTag(tesk, tt.tag)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ClassifyTag(tesk, %q) error = %v, want error %v", tt.tag, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ClassifyTag(tesk, %q) = %q, want %q", tt.tag, got, tt.want)
			}
		})
	}
}

// TestClassifyTagUnderAnotherPolicy: the moving and commit tags are the policy's names, not
// tesk-core's; a system without them publishes only versions.
func TestClassifyTagUnderAnotherPolicy(t *testing.T) {
	acme := TagPolicy{Latest: "stable", BranchTag: "edge", Branch: "main", CommitPrefix: "git-"}
	tests := []struct {
		policy  TagPolicy
		tag     string
		want    TagClass
		wantErr string
	}{
		{policy: acme, tag: "stable", want: ClassMoving},
		{policy: acme, tag: "edge", want: ClassMoving},
		{policy: acme, tag: "git-0123abc", want: ClassCommit},
		{policy: acme, tag: "1.2.3", want: ClassVersion},
		{policy: acme, tag: "latest", wantErr: "X.Y.Z, X.Y.Z{a,b,rc}N, git-<commit>, stable, edge"},
		{policy: acme, tag: "dev", wantErr: "not one this system publishes"},
		{policy: acme, tag: "sha-0123abc", wantErr: "not one this system publishes"},
		{policy: TagPolicy{}, tag: "1.2.3", want: ClassVersion},
		{policy: TagPolicy{}, tag: "latest", wantErr: "(X.Y.Z, X.Y.Z{a,b,rc}N)"},
		{policy: TagPolicy{}, tag: "0123abcd", wantErr: "not one this system publishes"},
		{policy: TagPolicy{}, tag: "", wantErr: "not one this system publishes"},
	}
	for _, tt := range tests {
		got, err := ClassifyTag(tt.policy, tt.tag)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ClassifyTag(%+v, %q) = %q, %v; want an error with %q", tt.policy, tt.tag, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ClassifyTag(%+v, %q) = %q, %v; want %q", tt.policy, tt.tag, got, err, tt.want)
		}
	}
}

func TestPlanTags(t *testing.T) {
	const image = "registry.example/org/tesk-core-filer"
	tests := []struct {
		name     string
		want     []string
		existing map[string]string
		actions  []TagAction
		refused  []string // tags whose refusal the error must name
	}{
		{
			name: "first release creates version and latest",
			want: []string{"latest", "0.11.0"},
			actions: []TagAction{
				{Tag: "0.11.0", Class: ClassVersion, Action: ActionCreate},
				{Tag: "latest", Class: ClassMoving, Action: ActionCreate},
			},
		},
		{
			name:     "re-run keeps what is already there",
			want:     []string{"0.11.0", "latest"},
			existing: map[string]string{"0.11.0": digestA, "latest": digestA},
			actions: []TagAction{
				{Tag: "0.11.0", Class: ClassVersion, Action: ActionKeep},
				{Tag: "latest", Class: ClassMoving, Action: ActionKeep},
			},
		},
		{
			name:     "latest moves from the previous release",
			want:     []string{"0.12.0", "latest"},
			existing: map[string]string{"0.11.0": digestB, "latest": digestB},
			actions: []TagAction{
				{Tag: "0.12.0", Class: ClassVersion, Action: ActionCreate},
				{Tag: "latest", Class: ClassMoving, Action: ActionMove, From: digestB},
			},
		},
		{
			name:     "dev and sha of a new commit",
			want:     []string{"dev", "sha-0123abc"},
			existing: map[string]string{"dev": digestB, "sha-fedcba9": digestB},
			actions: []TagAction{
				{Tag: "sha-0123abc", Class: ClassCommit, Action: ActionCreate},
				{Tag: "dev", Class: ClassMoving, Action: ActionMove, From: digestB},
			},
		},
		{
			name:     "latest goes after dev",
			want:     []string{"latest", "dev"},
			existing: map[string]string{"dev": digestB},
			actions: []TagAction{
				{Tag: "dev", Class: ClassMoving, Action: ActionMove, From: digestB},
				{Tag: "latest", Class: ClassMoving, Action: ActionCreate},
			},
		},
		{
			name:     "duplicates are planned once",
			want:     []string{"dev", "dev"},
			existing: map[string]string{},
			actions:  []TagAction{{Tag: "dev", Class: ClassMoving, Action: ActionCreate}},
		},
		{
			name:     "a version on another digest is refused",
			want:     []string{"0.11.0", "latest"},
			existing: map[string]string{"0.11.0": digestB, "latest": digestB},
			refused:  []string{"0.11.0"},
		},
		{
			name:     "a pre-release on another digest is refused",
			want:     []string{"0.11.0rc1"},
			existing: map[string]string{"0.11.0rc1": digestB},
			refused:  []string{"0.11.0rc1"},
		},
		{
			name:     "a commit tag on another digest is refused, dev is not planned",
			want:     []string{"dev", "sha-0123abc"},
			existing: map[string]string{"sha-0123abc": digestB, "dev": digestB},
			refused:  []string{"sha-0123abc"},
		},
		{
			name:     "every refusal is named",
			want:     []string{"0.11.0", "sha-0123abc", "nightly"},
			existing: map[string]string{"0.11.0": digestB, "sha-0123abc": digestC},
			refused:  []string{"0.11.0", "sha-0123abc", "nightly"},
		},
		{
			name:     "a malformed existing digest is refused",
			want:     []string{"dev"},
			existing: map[string]string{"dev": "sha256:nope"},
			refused:  []string{"dev"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := PlanTags(tesk, image, digestA, tt.want, tt.existing)
			if len(tt.refused) > 0 {
				if err == nil {
					t.Fatalf("PlanTags = %v, want an error", plan)
				}
				if len(plan.Actions) != 0 || plan.Digest != "" {
					t.Errorf("refused plan has content: %+v", plan)
				}
				for _, tag := range tt.refused {
					if !strings.Contains(err.Error(), tag) {
						t.Errorf("error %q does not name %s", err, tag)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("PlanTags: %v", err)
			}
			if plan.Image != image || plan.Digest != digestA {
				t.Errorf("plan is for %s@%s", plan.Image, plan.Digest)
			}
			if !reflect.DeepEqual(plan.Actions, tt.actions) {
				t.Errorf("actions = %+v\nwant %+v", plan.Actions, tt.actions)
			}
		})
	}
}

func TestPlanTagsImmutableErrorNamesBothDigestsAndTheFix(t *testing.T) {
	_, err := PlanTags(tesk, "r.example/org/img", digestA, []string{"0.11.0"}, map[string]string{"0.11.0": digestB})
	var ie *ImmutableTagError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v is not an ImmutableTagError", err)
	}
	if ie.Tag != "0.11.0" || ie.Published != digestB || ie.Wanted != digestA {
		t.Errorf("ImmutableTagError = %+v", ie)
	}
	for _, s := range []string{digestA, digestB, "a published version never moves to another digest: release a higher version"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
}

func TestPlanTagsRejectsBadInput(t *testing.T) {
	tests := []struct {
		name, image, digest string
	}{
		{"empty image", "", digestA},
		{"digest without algorithm", "r.example/o/i", strings.Repeat("a", 64)},
		{"uppercase digest", "r.example/o/i", "sha256:" + strings.Repeat("A", 64)},
		{"short digest", "r.example/o/i", "sha256:abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := PlanTags(tesk, tt.image, tt.digest, []string{"dev"}, nil); err == nil {
				t.Error("PlanTags accepted it")
			}
		})
	}
}

func TestTaggingRendersTextAndJSON(t *testing.T) {
	plan, err := PlanTags(tesk, "r.example/o/i", digestA, []string{"0.12.0", "latest"}, map[string]string{"latest": digestB})
	if err != nil {
		t.Fatal(err)
	}
	text := plan.String()
	for _, s := range []string{"r.example/o/i@" + digestA, "create", "0.12.0", "move", "latest", "from " + digestB} {
		if !strings.Contains(text, s) {
			t.Errorf("text plan lacks %q:\n%s", s, text)
		}
	}
	b, err := json.MarshalIndent(plan, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var back Tagging
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, plan) {
		t.Errorf("JSON round trip = %+v, want %+v", back, plan)
	}
}

func TestCheckPlanRejectsForgedPlans(t *testing.T) {
	const image = "r.example/o/i"
	tests := []struct {
		name string
		plan Tagging
	}{
		{"other digest", Tagging{Image: image, Digest: digestB}},
		{"other image", Tagging{Image: "r.example/o/other", Digest: digestA}},
		{"version moved", Tagging{Image: image, Digest: digestA, Actions: []TagAction{{Tag: "0.11.0", Class: ClassVersion, Action: ActionMove, From: digestB}}}},
		{"commit moved", Tagging{Image: image, Digest: digestA, Actions: []TagAction{{Tag: "sha-0123abc", Class: ClassCommit, Action: ActionMove, From: digestB}}}},
		{"class relabelled", Tagging{Image: image, Digest: digestA, Actions: []TagAction{{Tag: "0.11.0", Class: ClassMoving, Action: ActionMove, From: digestB}}}},
		{"unknown tag", Tagging{Image: image, Digest: digestA, Actions: []TagAction{{Tag: "nightly", Class: ClassMoving, Action: ActionCreate}}}},
		{"unknown action", Tagging{Image: image, Digest: digestA, Actions: []TagAction{{Tag: "dev", Class: ClassMoving, Action: "delete"}}}},
		{"tag twice", Tagging{Image: image, Digest: digestA, Actions: []TagAction{{Tag: "dev", Class: ClassMoving, Action: ActionCreate}, {Tag: "dev", Class: ClassMoving, Action: ActionCreate}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkPlan(tesk, image, digestA, tt.plan); err == nil {
				t.Error("checkPlan accepted it")
			}
		})
	}
}
