package release

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/testkit/teskrepo"
	"dagger/shipyard/pipelines/publish"
)

func TestStillLatestAmong(t *testing.T) {
	tests := []struct {
		name     string
		tag      string
		releases []string
		registry []string
		want     bool
	}{
		{"highest final", "v1.0.0", []string{"v0.11.0", "v0.10.6"}, []string{"0.11.0", "latest", "sha-0123456"}, true},
		{"its own release counts for nothing", "v1.0.0", []string{"v1.0.0", "v0.11.0"}, []string{"1.0.0"}, true},
		{"a higher release on GitHub", "v1.0.0", []string{"v1.1.0"}, nil, false},
		{"a higher version only in the registry", "v1.0.0", []string{"v0.11.0"}, []string{"1.1.0"}, false},
		{"a higher pre-release does not count", "v1.0.0", []string{"v1.1.0rc1"}, []string{"1.1.0rc1"}, true},
		{"a backport", "v0.10.7", []string{"v0.11.0"}, []string{"0.11.0"}, false},
		{"pre-releases never get latest", "v1.1.0rc1", nil, nil, false},
		{"old v-prefixed registry tags read as versions", "v0.10.7", nil, []string{"v0.10.8"}, false},
	}
	for _, tt := range tests {
		got, err := StillLatestAmong(tt.tag, tt.releases, tt.registry)
		if err != nil || got != tt.want {
			t.Errorf("%s: %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := StillLatestAmong("release-1", nil, nil); err == nil {
		t.Error("a tag that is no release version was accepted")
	}
}

func TestHigherFinalVersions(t *testing.T) {
	got := HigherFinalVersions("v1.0.0", []string{"v0.11.0", "v1.0.0", "v1.0.1", "v1.1.0rc1", "v2.0.0", "model-1.2.3", "v1.0.1.post1"})
	if strings.Join(got, ",") != "1.0.1,2.0.0" {
		t.Errorf("got %v", got)
	}
	if got := HigherFinalVersions("not-a-tag", []string{"v9.0.0"}); got != nil {
		t.Errorf("got %v for a bad tag", got)
	}
}

// TestHigherReleasePublishedBeforeTagging: v1.0.0 is planned as latest, but while its images
// are scanned and signed, v1.1.0 is published, on GitHub or only in the registry so far.
// latest stays on v1.1.0's images, the report says why, and GitHub's latest is not taken.
func TestHigherReleasePublishedBeforeTagging(t *testing.T) {
	tests := []struct {
		name string
		// githubRelease publishes v1.1.0's GitHub release too; otherwise only its images.
		githubRelease bool
	}{
		{name: "higher GitHub release", githubRelease: true},
		{name: "higher images without their GitHub release yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			w := newWorld(t, teskrepo.Options{Published: []string{"v0.10.6", "v0.11.0"}})
			w.repo.Release("v1.0.0")
			w.serve("v1.0.0")
			cfg := w.config()

			// The release runs up to its push (the notes composed before it)...
			st, steps := newState(cfg, "v1.0.0"), releaseSteps()
			if err := runSteps(ctx, st, steps, StepPlan, StepPush); err != nil {
				t.Fatal(err)
			}
			if plan := st.plan; !plan.Latest || plan.MakeLatest != "true" {
				t.Fatalf("plan %+v", plan)
			}
			pushed := st.images.Pushed

			// Meanwhile: v1.1.0 is tagged and its images published (another release job).
			higher := w.repo.Release("v1.1.0")
			higherDigests := map[string]string{}
			for _, n := range teskImages {
				w.pub.Rebuild(n)
				repo := w.repository(n)
				higherDigests[n] = w.pub.Registry.Push(t, repo, w.pub.Image(t, n))
				w.pub.Registry.Tag(t, repo, "1.1.0", higherDigests[n])
				w.pub.Registry.Tag(t, repo, "latest", higherDigests[n])
			}
			if tt.githubRelease {
				w.repo.Publish("v1.1.0", higher)
			}

			// ...and then on to its tags.
			if err := runSteps(ctx, st, steps, StepScan, StepTag); err != nil {
				t.Fatal(err)
			}
			applied := st.images.Applied
			rep := Report{Images: []ImageReport{{Name: "filer", Repository: w.repository("filer")}, {Name: "taskmaster", Repository: w.repository("taskmaster")}}}
			rep.addTags("latest", applied)
			for i, n := range teskImages {
				tags := w.tags(n)
				if tags["1.0.0"] != pushedDigest(pushed, n) || tags["latest"] != higherDigests[n] {
					t.Errorf("%s tags %v: want 1.0.0 on %s and latest left on %s", n, tags, pushedDigest(pushed, n), higherDigests[n])
				}
				if !strings.Contains(rep.Images[i].LatestSkipped, "no longer the highest release") {
					t.Errorf("report of %s does not say why latest was left: %+v", n, rep.Images[i])
				}
			}
			if err := runSteps(ctx, st, steps, StepGHRelease, StepGHRelease); err != nil {
				t.Fatal(err)
			}
			rel := st.rel
			got := w.releasesOf("v1.0.0")
			wantLatest := "true"
			if tt.githubRelease {
				wantLatest = "false"
			}
			if len(got) != 1 || got[0].MakeLatest != wantLatest || rel.MakeLatest != wantLatest {
				t.Errorf("GitHub release %+v (reported %q), want make_latest %s", got, rel.MakeLatest, wantLatest)
			}
		})
	}
}

// runSteps runs the steps from first to last (inclusive) on st, as the release would.
func runSteps(ctx context.Context, st *releaseState, steps []flow.Step[releaseState], first, last string) error {
	from := slices.IndexFunc(steps, func(s flow.Step[releaseState]) bool { return s.Name == first })
	to := slices.IndexFunc(steps, func(s flow.Step[releaseState]) bool { return s.Name == last })
	_, err := flow.Run(ctx, st.cfg.runner(st.tag, false), steps[from:to+1], st)
	return err
}

func pushedDigest(pushed []publish.Pushed, name string) string {
	for _, p := range pushed {
		if p.Name == name {
			return p.Digest
		}
	}
	return ""
}

// TestImageVersionDiffersFromTag: one image installs another version than the tag's; nothing
// is pushed, tagged or created, and the error names the image and both versions.
func TestImageVersionDiffersFromTag(t *testing.T) {
	w := newWorld(t, teskrepo.Options{})
	w.repo.Release("v0.11.0")
	w.program = nil
	w.freshEngine()
	// The taskmaster image installs a wheel built without the pretend version.
	w.e.OnExec(versionRule("containers/taskmaster.Dockerfile", "0.11.1.dev3+g1a2b3c4"))
	rep, err := w.run("v0.11.0", Options{})
	var mismatch *VersionMismatchError
	if !errors.As(err, &mismatch) || mismatch.Image != "tesk-core-taskmaster" || mismatch.Want != "0.11.0" || mismatch.Got != "0.11.1.dev3+g1a2b3c4" || mismatch.Package != teskrepo.Package {
		t.Fatalf("err = %v", err)
	}
	if rep.Failed != StepVersion {
		t.Errorf("report failed at %q", rep.Failed)
	}
	if n := w.registryWrites(); n != 0 {
		t.Errorf("%d registry writes", n)
	}
	if w.ghWrites() != 0 || len(w.releasesOf("v0.11.0")) != 0 {
		t.Error("GitHub was changed")
	}
	// The check ran in both images, with the package name read from pyproject.toml.
	if n := len(w.e.Graph().ExecsWith("import importlib.metadata as m, sys; print(m.version(sys.argv[1])) teskcore")); n != 2 {
		t.Errorf("%d version checks ran, want 2", n)
	}
}

// TestRegistryOutageWhileRecheckingLatest: latest is never moved on a guess; the step fails
// and says to re-run.
func TestRegistryOutageWhileRecheckingLatest(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, teskrepo.Options{Published: []string{"v0.10.6", "v0.11.0"}})
	w.repo.Release("v1.0.0")
	w.repo.Tag("v1.1.0", w.repo.Prepare("v1.1.0")) // tagged, not released yet
	w.serve("v1.0.0")
	cfg := w.config()
	st, steps := newState(cfg, "v1.0.0"), releaseSteps()
	if err := runSteps(ctx, st, steps, StepPlan, StepScan); err != nil {
		t.Fatal(err)
	}
	pushed := st.images.Pushed
	// The recheck of 1.1.0 in the registry fails.
	w.pub.Registry.FailNext(1000, http.StatusForbidden, func(r *http.Request) bool {
		return r.Method == http.MethodHead && strings.HasSuffix(r.URL.Path, "/manifests/1.1.0")
	})
	err := runSteps(ctx, st, steps, StepAttest, StepTag)
	if flow.FailedStep(err) != StepTag || !strings.Contains(err.Error(), "recheck latest") {
		t.Fatalf("err = %v", err)
	}
	for _, n := range teskImages {
		if d, ok := w.tags(n)["latest"]; ok && d == pushedDigest(pushed, n) {
			t.Errorf("%s: latest moved on a guess", n)
		}
	}
}
