package registry

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestResolveTagsHeadsOnlyTheWantedTags(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("img")
	a := pushed(t, reg, repo)
	b := pushed(t, reg, repo)
	tagWith(t, reg, repo, a, "0.10.7", "sha-aaaaaaa")
	tagWith(t, reg, repo, b, "0.11.0", "latest")

	mark := reg.mark()
	got, err := ResolveTags(t.Context(), repo, []string{"0.11.0", "latest", "0.12.0", "latest"}, reg.auth, reg.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"0.11.0": b, "latest": b}; !reflect.DeepEqual(got, want) {
		t.Errorf("ResolveTags = %v, want %v", got, want)
	}
	reg.mu.Lock()
	var heads []string
	for _, r := range reg.requests[mark:] {
		if strings.HasPrefix(r, "HEAD ") {
			heads = append(heads, r)
		}
		if strings.HasSuffix(r, "/tags/list") {
			t.Errorf("ResolveTags listed tags: %s", r)
		}
	}
	reg.mu.Unlock()
	if len(heads) != 3 {
		t.Errorf("HEAD requests = %v, want one per distinct tag", heads)
	}
}

func TestResolveTagsOfAMissingRepositoryIsEmpty(t *testing.T) {
	reg := newTestRegistry(t)
	got, err := ResolveTags(t.Context(), reg.repo("never-pushed"), []string{"dev"}, reg.auth, reg.opts()...)
	if err != nil || len(got) != 0 {
		t.Errorf("ResolveTags = %v, %v; want empty", got, err)
	}
	tags, err := Tags(t.Context(), reg.repo("never-pushed"), reg.auth, reg.opts()...)
	if err != nil || len(tags) != 0 {
		t.Errorf("Tags = %v, %v; want empty", tags, err)
	}
}

func TestResolveTagsRejectsInvalidTags(t *testing.T) {
	reg := newTestRegistry(t)
	for _, tag := range []string{"", "-dev", "a/b", strings.Repeat("x", 129)} {
		if _, err := ResolveTags(t.Context(), reg.repo("img"), []string{tag}, reg.auth, reg.opts()...); err == nil {
			t.Errorf("ResolveTags accepted tag %q", tag)
		}
	}
}

func TestTagsListsAndResolvesEveryTag(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("img")
	a := pushed(t, reg, repo)
	b := pushed(t, reg, repo)
	tagWith(t, reg, repo, a, "0.10.7")
	tagWith(t, reg, repo, b, "0.11.0", "dev")

	got, err := Tags(t.Context(), repo, reg.auth, reg.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	if want := reg.state(t, repo); !reflect.DeepEqual(got, want) || len(got) != 3 {
		t.Errorf("Tags = %v, want %v", got, want)
	}
}

func TestTagsRefusesMoreThanItResolves(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("img")
	d := pushed(t, reg, repo)
	var tags []string
	for i := range MaxTagsResolved + 1 {
		tags = append(tags, fmt.Sprintf("sha-%07x", i))
	}
	plan, err := PlanTags(tesk, repo, d, tags, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ApplyTags(t.Context(), tesk, repo, d, plan, reg.auth, nil, reg.opts()...); err != nil {
		t.Fatal(err)
	}
	mark := reg.mark()
	if _, err := Tags(t.Context(), repo, reg.auth, reg.opts()...); err == nil || !strings.Contains(err.Error(), "ResolveTags") {
		t.Errorf("Tags error = %v, want a refusal pointing to ResolveTags", err)
	}
	reg.mu.Lock()
	for _, r := range reg.requests[mark:] {
		if strings.HasPrefix(r, "HEAD ") {
			t.Errorf("Tags resolved a tag before refusing: %s", r)
			break
		}
	}
	reg.mu.Unlock()
}

func TestDigest(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("img")
	d := pushed(t, reg, repo)
	tagWith(t, reg, repo, d, "0.11.0")
	tests := []struct {
		ref     string
		want    string
		wantErr bool
	}{
		{ref: repo + ":0.11.0", want: d},
		{ref: repo + "@" + d, want: d},
		{ref: repo + ":0.12.0", wantErr: true},
		{ref: repo + "@" + digestA, wantErr: true},
		{ref: repo, wantErr: true}, // no implicit latest
		{ref: "org/img:0.11.0", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			got, err := Digest(t.Context(), tt.ref, reg.auth, reg.opts()...)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Digest error = %v, want error %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("Digest = %s, want %s", got, tt.want)
			}
		})
	}
}
