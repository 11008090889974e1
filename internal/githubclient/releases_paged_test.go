package githubclient

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/github"
)

func TestReleasePagesStopsWhereTheCallerSays(t *testing.T) {
	f := setup(t, false)
	for i := range 250 {
		f.repo.AddRelease(githubsim.Release{TagName: fmt.Sprintf("v0.%d.0", i)})
	}
	tests := []struct {
		name         string
		perPage      int
		maxPages     int
		stopAfter    int // pages after which more returns false; 0 never
		wantPages    int
		wantComplete bool
		wantSeen     int
		wantFirst    string
	}{
		{"all pages", 100, 0, 0, 3, true, 250, "v0.249.0"},
		{"stop after the first page", 100, 0, 1, 1, true, 100, "v0.249.0"},
		{"stop after the second page", 100, 0, 2, 2, true, 200, "v0.249.0"},
		{"page limit reached first", 100, 2, 0, 2, false, 200, "v0.249.0"},
		{"page size out of range means 100", 500, 0, 1, 1, true, 100, "v0.249.0"},
		{"small pages", 10, 0, 3, 3, true, 30, "v0.249.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.sim.ResetLog()
			var seen []github.Release
			calls := 0
			pages, complete, err := github.ReleasePages(context.Background(), f.c, "octo", "demo", tt.perPage, tt.maxPages, func(page []github.Release) bool {
				calls++
				seen = append(seen, page...)
				return tt.stopAfter == 0 || calls < tt.stopAfter
			})
			if err != nil {
				t.Fatal(err)
			}
			if pages != tt.wantPages || complete != tt.wantComplete || len(seen) != tt.wantSeen || seen[0].TagName != tt.wantFirst {
				t.Errorf("pages %d complete %v seen %d first %s; want %d %v %d %s",
					pages, complete, len(seen), seen[0].TagName, tt.wantPages, tt.wantComplete, tt.wantSeen, tt.wantFirst)
			}
			if n := f.sim.Count("GET", "/repos/octo/demo/releases"); n != tt.wantPages {
				t.Errorf("%d requests for %d pages", n, tt.wantPages)
			}
		})
	}
}

func TestReleasePagesOfAMissingRepository(t *testing.T) {
	f := setup(t, false)
	_, _, err := github.ReleasePages(context.Background(), f.c, "octo", "gone", 100, 0, func([]github.Release) bool { return true })
	if !errors.Is(err, github.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}
