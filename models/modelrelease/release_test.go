package modelrelease

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/models"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/modeltest"
)

func TestFirstReleaseLeavesADraftPinnedToItsCommit(t *testing.T) {
	w := newWorld(t)
	res, e, err := w.run(ReleaseOptions{}, nil, "1.17.1.0")
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Text())
	}
	if res.Plan.Version != "1.17.1.0" || res.Plan.Decision.Action != models.Draft || res.Published {
		t.Fatalf("result:\n%s", res.Text())
	}
	head := w.repo.Branch("release-1.17")
	if head == "" || head != res.Commit {
		t.Fatalf("release-1.17 at %q, result commit %q", head, res.Commit)
	}
	if parents := w.repo.Parents(head); len(parents) != 1 || parents[0] != w.main {
		t.Errorf("a new release branch starts from the main commit the run generated: parents %v, main %s", parents, w.main)
	}
	files := w.repo.Files(head)
	if !strings.Contains(files[modelenv.PyprojectPath], `version = "1.17.1.0"`) || files[pkg+"/v1.py"] == "" {
		t.Errorf("commit tree lacks the versioned project or the models")
	}
	rec := w.recordOf(head)
	if rec.Version != "1.17.1.0" || rec.Upstream != "1.17.1" || rec != res.Plan.Record {
		t.Errorf("record %+v, plan %+v", rec, res.Plan.Record)
	}
	drafts := w.releasesOf("1.17.1.0")
	if len(drafts) != 1 || !drafts[0].Draft || drafts[0].TargetCommitish != head || drafts[0].ID != res.Draft {
		t.Fatalf("drafts %+v", drafts)
	}
	if fromBody, ok, err := RecordFromBody(drafts[0].Body); err != nil || !ok || fromBody != rec {
		t.Errorf("body record %+v, %v, %v", fromBody, ok, err)
	}
	if tag := w.repo.Tag("1.17.1.0"); tag != "" {
		t.Errorf("a draft created tag 1.17.1.0 at %s", tag)
	}
	want := []string{"POST /git/trees", "POST /git/commits", "POST /git/refs", "POST /releases"}
	if got := writePaths(w); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("writes %v, want %v", got, want)
	}
	// The whole upstream selection ran: pyproject.toml names 1.17.1's schema, the lock was
	// refreshed within the compatible range, the checks ran, the version's lock refreshed.
	for _, args := range []string{"uv lock --upgrade-package cloudcoil", "uv run --frozen cloudcoil-model-codegen",
		"make lint", "make test", "uv lock", "uv build --out-dir /dist"} {
		if !modeltest.HasExec(e, args) {
			t.Errorf("no exec %q", args)
		}
	}
	modeltest.NoSecrets(t, e)
}

func TestIdenticalRerunIsANoOp(t *testing.T) {
	for _, publish := range []bool{false, true} {
		name := map[bool]string{false: "after a draft", true: "after a publication"}[publish]
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			first, _, err := w.run(ReleaseOptions{AutoPublish: publish}, nil, "1.17.1.0")
			if err != nil || first.Published != publish {
				t.Fatalf("first run: %v\n%s", err, first.Text())
			}
			w.sim.ResetLog()
			w.pypi.ResetLog()
			again, _, err := w.run(ReleaseOptions{AutoPublish: publish}, nil, "1.17.1.0")
			if err != nil {
				t.Fatalf("%v\n%s", err, again.Text())
			}
			w.noWrites()
			if publish {
				if again.Plan.Decision.Action != models.Nothing || !again.Plan.Unchanged || again.Plan.Version != "1.17.1.0" {
					t.Errorf("plan:\n%s", again.Plan.Text())
				}
			} else if again.Plan.Version != "1.17.1.0" || !again.Plan.ReusedDraft || again.Plan.Push || len(again.Notes) != 0 {
				t.Errorf("plan:\n%s\nsteps %v", again.Plan.Text(), again.Notes)
			}
			if n := len(w.repo.Releases()); n != 1 {
				t.Errorf("%d releases after the re-run", n)
			}
		})
	}
}

func TestTemplateChangeGivesTheNextPackagingRevision(t *testing.T) {
	w := newWorld(t)
	first, _, err := w.run(ReleaseOptions{AutoPublish: true}, nil, "1.17.1.0")
	if err != nil || !first.Published {
		t.Fatalf("%v\n%s", err, first.Text())
	}
	if tag := w.repo.Tag("1.17.1.0"); tag != first.Commit {
		t.Fatalf("publishing tagged %q, want the pinned commit %s", tag, first.Commit)
	}
	// A template change reaches main: the generated module now declares its exports.
	model := pkg + "/v1.py"
	w.setCheckout(map[string]string{model: string(fixtureFile(t, model)) + "\n__all__ = [\"Certificate\", \"Issuer\"]\n"})
	w.sim.ResetLog()
	second, _, err := w.run(ReleaseOptions{AutoPublish: true}, nil, "1.17.1.1")
	if err != nil || !second.Published {
		t.Fatalf("%v\n%s", err, second.Text())
	}
	if second.Plan.Version != "1.17.1.1" || second.Plan.LastPublished != "1.17.1.0" || second.Plan.Unchanged {
		t.Errorf("plan:\n%s", second.Plan.Text())
	}
	// A regular commit on top of the previous release, never a rewrite.
	if parents := w.repo.Parents(second.Commit); len(parents) != 1 || parents[0] != first.Commit {
		t.Errorf("parents %v, want the previous release commit %s", parents, first.Commit)
	}
	if !strings.Contains(w.repo.Files(second.Commit)[model], "__all__") || w.repo.Tag("1.17.1.1") != second.Commit {
		t.Errorf("release 1.17.1.1 is not the new generation at its own commit")
	}
	if rec := w.recordOf(second.Commit); rec.Fingerprint == w.recordOf(first.Commit).Fingerprint {
		t.Error("a changed generation kept its fingerprint")
	}
	for _, r := range w.repo.Releases() {
		if r.TagName == "1.17.1.1" && (r.Draft || r.MakeLatest != "true") {
			t.Errorf("release %+v", r)
		}
	}
}

func TestMainAdvancingStopsPublication(t *testing.T) {
	t.Run("before the push: nothing is written", func(t *testing.T) {
		w := newWorld(t)
		env, e := modeltest.NewEnv(t)
		w.serve(e, "1.17.1.0", nil)
		var once sync.Once
		// main moves while the models generate.
		e.OnExec(engine.ExecRule{ArgsContain: "cloudcoil-model-codegen", Match: func(engine.Exec) bool {
			once.Do(func() {
				w.repo.CommitOnBranch("main", "Update generated models again", map[string]string{"README.md": "newer\n"})
			})
			return false
		}})
		res, _, err := w.runIn(env, e, ReleaseOptions{Publish: true}, nil)
		if err == nil || !strings.Contains(err.Error(), "main advanced") || res.Plan.Decision.Action != models.Stop {
			t.Fatalf("err = %v\n%s", err, res.Text())
		}
		w.noWrites()
	})
	t.Run("after the draft: it stays unpublished", func(t *testing.T) {
		w := newWorld(t)
		gh := w.client(&hook{
			match: func(r *http.Request) bool {
				return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/releases")
			},
			before: func() {
				w.repo.CommitOnBranch("main", "Update generated models again", map[string]string{"README.md": "newer\n"})
			},
		})
		res, _, err := w.run(ReleaseOptions{Publish: true}, gh, "1.17.1.0")
		if err == nil || !strings.Contains(err.Error(), "stays unpublished") || res.Published {
			t.Fatalf("err = %v\n%s", err, res.Text())
		}
		drafts := w.releasesOf("1.17.1.0")
		if len(drafts) != 1 || !drafts[0].Draft || w.repo.Tag("1.17.1.0") != "" {
			t.Errorf("releases %+v, tag %q", drafts, w.repo.Tag("1.17.1.0"))
		}
	})
}

func TestFailedChecksPublishNothing(t *testing.T) {
	tests := []struct {
		name    string
		program func(w *world, e *engine.Engine)
		want    string
	}{
		{"lint", func(w *world, e *engine.Engine) {
			w.serve(e, "1.17.1.0", nil)
			e.OnExec(engine.ExecRule{ArgsContain: "make lint", ExitCode: 1, Stderr: "Would reformat: cloudcoil/models/cert_manager/v1.py"})
		}, "| lint | failed"},
		{"generation", func(w *world, e *engine.Engine) {
			e.OnExec(engine.ExecRule{ArgsContain: "cloudcoil-model-codegen", ExitCode: 1, Stderr: "error: cannot fetch schema"})
		}, "| generate | failed"},
		{"one byte of the wheel", func(w *world, e *engine.Engine) {
			w.serve(e, "1.17.1.0", func(kind string, files map[string]string) {
				if kind == "wheel" {
					files["cloudcoil/models/cert_manager/v1.py"] += "#"
				}
			})
		}, "cloudcoil/models/cert_manager/v1.py: wheel: content differs from the checkout"},
		{"a module missing from the sdist", func(w *world, e *engine.Engine) {
			w.serve(e, "1.17.1.0", func(kind string, files map[string]string) {
				if kind == "sdist" {
					delete(files, "cloudcoil_models_cert_manager-1.17.1.0/"+pkg+"/acme/v1.py")
				}
			})
		}, "sdist: missing, but present in the checkout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			env, e := modeltest.NewEnv(t)
			tt.program(w, e)
			res, _, err := w.runIn(env, e, ReleaseOptions{Publish: true, AutoPublish: true}, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "nothing was pushed or released") {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if res.Plan.Decision.Action != models.Stop {
				t.Errorf("decision %v", res.Plan.Decision)
			}
			w.noWrites()
			if len(w.repo.Releases()) != 0 || w.repo.Branch("release-1.17") != "" {
				t.Error("something was released")
			}
		})
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	w := newWorld(t)
	w.pypi.AddRelease(project, "1.17.1.0")
	res, _, err := w.run(ReleaseOptions{DryRun: true, Publish: true, AutoPublish: true}, nil, "1.17.1.1")
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Text())
	}
	if res.Plan.Decision.Action != models.DryRun || res.Plan.Version != "1.17.1.1" || res.Artifacts.WheelName == "" {
		t.Errorf("result:\n%s", res.Text())
	}
	w.noWrites()
	if len(w.pypi.Requests()) == 0 {
		t.Error("the dry run did not read PyPI, so its plan is not the real one")
	}
}

func TestAllocationSeesEveryPublishedVersion(t *testing.T) {
	tests := []struct {
		name  string
		seed  func(w *world)
		want  string
		reuse bool
	}{
		{"a yanked PyPI version and a git tag", func(w *world) {
			w.pypi.AddRelease(project, "1.17.1.9")
			_ = w.pypi.Yank(project, "1.17.1.9", "broken")
			w.repo.LightweightTag("1.17.1.10", w.main)
		}, "1.17.1.11", false},
		{"a release from before fingerprints gets one more revision", func(w *world) {
			sha := w.repo.CommitOnBranch("release-1.17", "old release", map[string]string{"README.md": "old\n"})
			w.repo.AddRelease(githubsim.Release{TagName: "1.17.1.0", TargetCommitish: sha, Body: "Hand-written notes."})
			w.repo.LightweightTag("1.17.1.0", sha)
		}, "1.17.1.1", false},
		{"a stale draft of a failed run is reused and moved", func(w *world) {
			w.repo.AddRelease(githubsim.Release{TagName: "1.17.1.0", TargetCommitish: w.main, Draft: true, Body: "from a run that failed"})
		}, "1.17.1.0", true},
		{"other upstreams and malformed tags are ignored", func(w *world) {
			w.repo.LightweightTag("1.16.3.4", w.main)
			w.repo.LightweightTag("v1.17.1", w.main)
			w.repo.LightweightTag("nightly", w.main)
			w.pypi.AddRelease(project, "1.17.1.0rc1")
		}, "1.17.1.1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			tt.seed(w)
			res, _, err := w.run(ReleaseOptions{}, nil, tt.want)
			if err != nil {
				t.Fatalf("%v\n%s", err, res.Text())
			}
			if res.Plan.Version != tt.want || res.Plan.ReusedDraft != tt.reuse {
				t.Fatalf("plan:\n%s", res.Plan.Text())
			}
			drafts := 0
			for _, r := range w.releasesOf(tt.want) {
				if r.Draft {
					drafts++
					if r.TargetCommitish != res.Commit {
						t.Errorf("draft pinned to %s, want %s", r.TargetCommitish, res.Commit)
					}
				}
			}
			if drafts != 1 {
				t.Errorf("%d drafts of %s", drafts, tt.want)
			}
		})
	}
}

func TestDuplicateDraftsAreRemovedOldestKept(t *testing.T) {
	w := newWorld(t)
	first := w.repo.AddRelease(githubsim.Release{TagName: "1.17.1.0", TargetCommitish: w.main, Draft: true})
	w.repo.AddRelease(githubsim.Release{TagName: "1.17.1.0", TargetCommitish: w.main, Draft: true})
	res, _, err := w.run(ReleaseOptions{}, nil, "1.17.1.0")
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Text())
	}
	drafts := w.releasesOf("1.17.1.0")
	if len(drafts) != 1 || drafts[0].ID != first || drafts[0].TargetCommitish != res.Commit {
		t.Errorf("drafts %+v, want only %d pinned to %s", drafts, first, res.Commit)
	}
}

func TestConcurrentRunsDoNotAllocateTheSameVersionTwice(t *testing.T) {
	t.Run("the loser of the branch race converges on the winner", func(t *testing.T) {
		w := newWorld(t)
		var winner ReleaseResult
		var winnerErr error
		// Run A is about to create the release branch when run B, started later, does
		// the whole release first.
		gh := w.client(&hook{
			match: func(r *http.Request) bool {
				return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git/refs")
			},
			before: func() {
				winner, _, winnerErr = w.run(ReleaseOptions{}, nil, "1.17.1.0")
			},
		})
		loser, _, err := w.run(ReleaseOptions{}, gh, "1.17.1.0")
		if winnerErr != nil || err != nil {
			t.Fatalf("winner: %v\nloser: %v\n%s", winnerErr, err, loser.Text())
		}
		if winner.Plan.Version != "1.17.1.0" || loser.Plan.Version != "1.17.1.0" || loser.Commit != winner.Commit {
			t.Fatalf("winner %s at %s, loser %s at %s", winner.Plan.Version, winner.Commit, loser.Plan.Version, loser.Commit)
		}
		if !strings.Contains(strings.Join(loser.Notes, "\n"), "planning again") {
			t.Errorf("loser notes %v", loser.Notes)
		}
		w.assertOneDraftAtHead(t, "1.17.1.0")
	})
	t.Run("runs at the same time", func(t *testing.T) {
		w := newWorld(t)
		var wg sync.WaitGroup
		results := make([]ReleaseResult, 2)
		errs := make([]error, 2)
		for i := range results {
			env, e := modeltest.NewEnv(t)
			w.serve(e, "1.17.1.0", nil)
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], _, errs[i] = w.runIn(env, e, ReleaseOptions{}, nil)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("run %d: %v\n%s", i, err, results[i].Text())
			}
		}
		if results[0].Plan.Version != results[1].Plan.Version {
			t.Errorf("versions %s and %s", results[0].Plan.Version, results[1].Plan.Version)
		}
		w.assertOneDraftAtHead(t, "1.17.1.0")
	})
}

func (w *world) assertOneDraftAtHead(t *testing.T, version string) {
	t.Helper()
	head := w.repo.Branch("release-1.17")
	if rec := w.recordOf(head); rec.Version != version {
		t.Errorf("head records %s", rec.Version)
	}
	var drafts []githubsim.Release
	for _, r := range w.repo.Releases() {
		if r.Draft {
			drafts = append(drafts, r)
		}
	}
	if len(drafts) != 1 || drafts[0].TagName != version || drafts[0].TargetCommitish != head {
		t.Errorf("drafts %+v, want one of %s at %s", drafts, version, head)
	}
}
