package modelrelease

import (
	"strings"
	"testing"

	"dagger/shipyard/models"
	"dagger/shipyard/models/modelenv"
)

// fixtureLines are the model repository fixture's release lines, from workflow when given.
func fixtureLines(t *testing.T, workflow string) modelenv.LineConfig {
	t.Helper()
	if workflow == "" {
		workflow = string(fixtureFile(t, modelenv.UpdateReleasesWorkflow))
	}
	cfg, err := modelenv.ParseLineConfig(modelenv.UpdateReleasesWorkflow, []byte(workflow))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestAPatchOnAnOldLineReleasesOnlyThatLine is the Update Versions matrix after a patch
// of the older line reaches main: every line runs, and only the patched one releases.
func TestAPatchOnAnOldLineReleasesOnlyThatLine(t *testing.T) {
	w := newWorld(t)
	lines, err := modelenv.ReleaseLines(fixtureLines(t, ""))
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
	patched := strings.Replace(string(fixtureFile(t, modelenv.UpdateReleasesWorkflow)), `'1.16.3', '1.17.1'`, `'1.16.4', '1.17.1'`, 1)
	w.setCheckout(map[string]string{modelenv.UpdateReleasesWorkflow: patched})
	lines, err = modelenv.ReleaseLines(fixtureLines(t, patched))
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
