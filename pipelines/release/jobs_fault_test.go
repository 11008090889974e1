package release

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/testkit/teskrepo"
	"dagger/shipyard/pipelines/publish"
)

// jobFailure is the job of the release workflow that failed, with the steps it declares.
type jobFailure struct {
	job   string
	steps []flow.Step[releaseState]
	err   error
}

// runJobs runs the release workflow's jobs of tag one after another, each on a fresh engine
// as on a fresh runner: the push job, or (split) a platform push job per platform and the
// assemble job, then the scan, publish and release jobs. It stops at the first job that
// fails.
func runJobs(w *world, tag string, split bool) jobFailure {
	ctx := context.Background()
	next := func() Config {
		w.freshEngine()
		w.serve(tag)
		return w.config()
	}
	var h Handoff
	var err error
	if split {
		var parts []publish.PlatformHandoff
		for _, p := range w.platforms {
			cfg := next()
			part, err := PushPlatformJob(ctx, cfg, tag, p)
			if err != nil {
				return jobFailure{"PushPlatformJob " + string(p), pushPlatformJobSteps(cfg.Platforms, p), err}
			}
			parts = append(parts, part)
		}
		if h, err = AssembleJob(ctx, next(), tag, parts); err != nil {
			return jobFailure{"AssembleJob", assembleJobSteps(parts), err}
		}
	} else if h, err = PushJob(ctx, next(), tag); err != nil {
		return jobFailure{"PushJob", pushJobSteps(), err}
	}
	scanned, _, err := ScanJob(ctx, next(), h)
	if err != nil {
		return jobFailure{"ScanJob", scanJobSteps(), err}
	}
	if _, err := PublishJob(ctx, next(), scanned, h); err != nil {
		return jobFailure{"PublishJob", publishJobSteps(), err}
	}
	if _, err := ReleaseJob(ctx, next(), tag); err != nil {
		return jobFailure{"ReleaseJob", releaseJobSteps(), err}
	}
	return jobFailure{}
}

// splitFaults are faults only the split jobs meet: the release's own push writes the
// indexes in push-by-digest, the split jobs in assemble-index.
func splitFaults() []releaseFault {
	return []releaseFault{{
		name: "an index refused", step: StepAssemble, message: "DENIED",
		inject: func(w *world) {
			w.pub.Registry.FailNext(1000, http.StatusForbidden, func(r *http.Request) bool {
				ct := r.Header.Get("Content-Type")
				return r.Method == http.MethodPut && (strings.Contains(ct, "index") || strings.Contains(ct, "manifest.list"))
			})
		},
	}}
}

// TestJobFaultsNameTheirJobsSteps: every fault of the release's fault table that fails a
// step, injected into the release workflow's jobs, fails the first job that declares that
// step, and the error names it: each job's failures name only steps of its own list. The
// faults at a step a platform push job declares also run through the split jobs, with the
// faults only they meet.
func TestJobFaultsNameTheirJobsSteps(t *testing.T) {
	t.Parallel() // with the slow-build token test, which mostly waits
	platformSteps := flow.Names(pushPlatformJobSteps(nil, ""))
	type run struct {
		fault releaseFault
		split bool
	}
	var runs []run
	for _, f := range releaseFaults() {
		if f.step == "" {
			continue
		}
		runs = append(runs, run{f, false})
		if slices.Contains(platformSteps, f.step) {
			runs = append(runs, run{f, true})
		}
	}
	for _, f := range splitFaults() {
		runs = append(runs, run{f, true})
	}
	for _, r := range runs {
		name := r.fault.name
		if r.split {
			name += ", split jobs"
		}
		t.Run(name, func(t *testing.T) {
			w := newWorld(t, teskrepo.Options{})
			if r.split {
				w.platforms = bothPlatforms
			}
			w.repo.Release("v0.11.0")
			r.fault.inject(w)
			got := runJobs(w, "v0.11.0", r.split)
			if got.err == nil {
				t.Fatalf("the jobs survived a fault of step %s", r.fault.step)
			}
			requireDeclaredStep(t, got.err, got.steps)
			if step := flow.FailedStep(got.err); step != r.fault.step || !strings.Contains(got.err.Error(), r.fault.message) {
				t.Errorf("%s failed at %q, want %q saying %q: %v", got.job, step, r.fault.step, r.fault.message, got.err)
			}
			if !strings.Contains(got.err.Error(), "\n  next: ") {
				t.Errorf("%s's error says nothing about what to do next: %v", got.job, got.err)
			}
		})
	}
}
