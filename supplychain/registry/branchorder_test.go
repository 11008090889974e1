package registry

import (
	"strings"
	"testing"
)

func TestStillNewestOnDev(t *testing.T) {
	t.Parallel()
	const ours, c2, c3 = "c1", "c2", "c3"
	const devNow, other = "sha256:now", "sha256:other"
	tests := []struct {
		name   string
		h      BranchHistory
		images map[string]string
		want   bool
		why    string
	}{
		{name: "our commit is dev's head", h: BranchHistory{Commit: ours, OnBranch: true, Complete: true}, want: true},
		{name: "newer commits without images", h: BranchHistory{Commit: ours, OnBranch: true, Newer: []string{c2, c3}, Complete: true}, want: true},
		{name: "dev on an image of no newer commit", h: BranchHistory{Commit: ours, OnBranch: true, Newer: []string{c2}, Complete: true},
			images: map[string]string{"sha-c2": other}, want: true},
		{name: "dev on the newest commit's image", h: BranchHistory{Commit: ours, OnBranch: true, Newer: []string{c2, c3}, Complete: true},
			images: map[string]string{"sha-c2": other, "sha-c3": devNow}, why: "image of c3, a newer commit"},
		{name: "dev on a newer commit's image", h: BranchHistory{Commit: ours, OnBranch: true, Newer: []string{c2, c3}, Complete: true},
			images: map[string]string{"sha-c2": devNow}, why: "image of c2, a newer commit"},
		{name: "commit off dev", h: BranchHistory{Commit: ours, Complete: true}, why: "not on the dev branch"},
		{name: "too far behind to list", h: BranchHistory{Commit: ours, OnBranch: true, Newer: []string{c2}}, why: "more commits after c1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ok, why := StillNewestOnBranch(tesk, tt.h, tt.images, devNow)
			if ok != tt.want || !strings.Contains(why, tt.why) || (!ok && !strings.Contains(why, devNow)) {
				t.Errorf("StillNewestOnDev = %t, %q; want %t with %q", ok, why, tt.want, tt.why)
			}
		})
	}
}

// Creating dev (no dev yet): the commit must be on dev and the comparison complete; newer
// commits without an image are no reason to refuse, as dev is on none of them.
func TestStillNewestOnDevWhenCreatingDev(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		h      BranchHistory
		images map[string]string
		want   bool
		why    string
	}{
		{name: "our commit is dev's head", h: BranchHistory{Commit: "c1", OnBranch: true, Complete: true}, want: true},
		{name: "newer commits without images", h: BranchHistory{Commit: "c1", OnBranch: true, Newer: []string{"c2"}, Complete: true}, want: true},
		{name: "newer commits with images", h: BranchHistory{Commit: "c1", OnBranch: true, Newer: []string{"c2"}, Complete: true},
			images: map[string]string{"sha-c2": "sha256:c2"}, want: true},
		{name: "commit off dev", h: BranchHistory{Commit: "c1", Complete: true}, why: "not on the dev branch"},
		{name: "too far behind to list", h: BranchHistory{Commit: "c1", OnBranch: true, Newer: []string{"c2"}}, why: "more commits after c1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ok, why := StillNewestOnBranch(tesk, tt.h, tt.images, "")
			if ok != tt.want || !strings.Contains(why, tt.why) || (!ok && !strings.Contains(why, "dev left absent")) {
				t.Errorf("StillNewestOnDev = %t, %q; want %t with %q", ok, why, tt.want, tt.why)
			}
		})
	}
}
