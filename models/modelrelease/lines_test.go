package modelrelease

import (
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/models"
)

func TestReleaseLines(t *testing.T) {
	withVersions := func(list string) []byte {
		return []byte(strings.Replace(pyproject, `upstream-versions = ["2.15.2", "2.16.1"]`, "upstream-versions = "+list, 1))
	}
	tests := []struct {
		name    string
		file    []byte
		want    string // LinesJSON
		wantErr string
	}{
		{"oldest first, the newest marked", withVersions(`["2.16.1", "2.15.2", "1.9.0"]`),
			`[{"upstream":"1.9.0","branch":"release-1.9","newest":false},{"upstream":"2.15.2","branch":"release-2.15","newest":false},{"upstream":"2.16.1","branch":"release-2.16","newest":true}]`, ""},
		{"one line", withVersions(`["2.16.1"]`), `[{"upstream":"2.16.1","branch":"release-2.16","newest":true}]`, ""},
		{"two patches of one minor", withVersions(`["2.16.0", "2.16.1"]`), "", "two versions of one minor line (release-2.16)"},
		{"empty", withVersions(`[]`), "", "is empty"},
		{"not X.Y.Z", withVersions(`["2.16"]`), "", `"2.16" is not an X.Y.Z`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines, err := ReleaseLines(tc.file)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "pyproject.toml") {
					t.Fatalf("err = %v, want %q naming pyproject.toml", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := LinesJSON(lines); got != tc.want {
				t.Errorf("LinesJSON =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestSelectLineNarrowsTheConfiguredVersions(t *testing.T) {
	got, err := SelectLine([]byte(pyproject), "2.15.2")
	if err != nil {
		t.Fatal(err)
	}
	versions, _, err := Upstreams(got)
	if err != nil || !slices.Equal(versions, []string{"2.15.2"}) {
		t.Fatalf("upstream-versions %v, %v", versions, err)
	}
	if !strings.Contains(string(got), "releases/download/v2.15.2/keda-2.15.2-crds.yaml") {
		t.Errorf("the schema URL was not selected:\n%s", got)
	}
	// The selection of one line does not depend on the other lines.
	other := strings.Replace(pyproject, `["2.15.2", "2.16.1"]`, `["2.15.2", "2.16.3"]`, 1)
	again, err := SelectLine([]byte(other), "2.15.2")
	if err != nil || string(again) != string(got) {
		t.Errorf("a patch of another line changed this line's file:\n%s\n---\n%s (%v)", got, again, err)
	}
	if _, err := SelectLine([]byte(pyproject), "2.17.0"); err == nil || !strings.Contains(err.Error(), "not configured") {
		t.Errorf("an unconfigured line: %v", err)
	}
}

// TestAPatchOnAnOldLineReleasesOnlyThatLine is the Update Versions matrix after a patch
// of the older line reaches main: every line runs, and only the patched one releases.
func TestAPatchOnAnOldLineReleasesOnlyThatLine(t *testing.T) {
	w := newWorld(t)
	lines, err := ReleaseLines(fixtureFile(t, pyprojectPath))
	if err != nil || len(lines) != 2 {
		t.Fatalf("lines %+v, %v", lines, err)
	}
	first := map[string]ReleaseResult{}
	for _, l := range lines {
		res, _, err := w.run(ReleaseOptions{Upstream: l.Upstream, AutoPublish: true}, nil, l.Upstream+".0")
		if err != nil || !res.Published {
			t.Fatalf("line %s: %v\n%s", l.Upstream, err, res.Text())
		}
		first[l.Branch] = res
	}

	// Cloudcoil's source update moves the old line from 1.16.3 to 1.16.4.
	patched := strings.Replace(string(fixtureFile(t, pyprojectPath)), `"1.16.3", "1.17.1"`, `"1.16.4", "1.17.1"`, 1)
	w.setCheckout(map[string]string{pyprojectPath: patched})
	lines, err = ReleaseLines([]byte(patched))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		w.sim.ResetLog()
		res, _, err := w.run(ReleaseOptions{Upstream: l.Upstream, AutoPublish: true}, nil, l.Upstream+".0")
		if err != nil {
			t.Fatalf("line %s: %v\n%s", l.Upstream, err, res.Text())
		}
		switch l.Branch {
		case "release-1.16":
			if !res.Published || res.Plan.Version != "1.16.4.0" || w.repo.Tag("1.16.4.0") != res.Commit {
				t.Errorf("the patched line:\n%s", res.Text())
			}
			if parents := w.repo.Parents(res.Commit); len(parents) != 1 || parents[0] != first["release-1.16"].Commit {
				t.Errorf("release-1.16 moved to %v, want a regular commit on its previous release", parents)
			}
			if rec := w.recordOf(w.repo.Branch("release-1.16")); rec.Upstream != "1.16.4" {
				t.Errorf("release-1.16 records %+v", rec)
			}
		case "release-1.17":
			if res.Plan.Decision.Action != models.Nothing || !res.Plan.Unchanged || res.Plan.Version != "1.17.1.0" {
				t.Errorf("the unchanged line:\n%s", res.Text())
			}
			w.noWrites()
			if w.repo.Branch("release-1.17") != first["release-1.17"].Commit {
				t.Error("release-1.17 moved")
			}
		default:
			t.Fatalf("unexpected line %+v", l)
		}
	}
	if n := len(w.repo.Releases()); n != 3 {
		t.Errorf("%d releases, want 1.16.3.0, 1.17.1.0 and 1.16.4.0", n)
	}
}
