package release

import (
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/teskrepo"
)

// A run told to stop before a step runs the steps before it, and none after: it succeeds,
// and its report says where it stopped, why, and which steps passed.
func TestStopEndsTheRunBeforeAStep(t *testing.T) {
	w := newWorld(t, teskrepo.Options{})
	w.repo.Release("v0.11.0")
	w.serve("v0.11.0")
	cfg := w.config()
	cfg.Stop = Stop{Before: StepBuild, Reason: "the demo serves no registry"}
	rep, err := Run(t.Context(), cfg, "v0.11.0", Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if b := w.e.Graph().Builds(); len(b) != 0 {
		t.Errorf("a run stopped before the build built %+v", b)
	}
	if x := w.e.Graph().Execs(); len(x) != 0 {
		t.Errorf("a run stopped before the build ran %+v", x)
	}
	if !slices.Equal(rep.Stopped.After, []string{StepPlan, StepSource}) || rep.Stopped.Before != StepBuild || rep.Commit != w.repo.GH.Tag("v0.11.0") {
		t.Errorf("report %+v", rep)
	}
	text := rep.Text()
	for _, want := range []string{"  passed:  release-plan, source\n", "  stopped before step build: the demo serves no registry\n", "  dry run: nothing was pushed, tagged or created\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	js, err := rep.JSON()
	if err != nil || !strings.Contains(js, `"before": "build"`) || !strings.Contains(js, `"after": [`) {
		t.Errorf("JSON %v:\n%s", err, js)
	}
}

// A step that fails before the stop fails the run as ever: the stop says nothing then.
func TestStopDoesNotHideAFailure(t *testing.T) {
	w := newWorld(t, teskrepo.Options{})
	w.repo.Prepare("v0.11.0")
	w.repo.GH.LightweightTag("v0.11.0", w.repo.GH.Branch("main")) // an unsigned, lightweight tag fails a gate
	cfg := w.config()
	cfg.Stop = Stop{Before: StepBuild, Reason: "r"}
	rep, err := Run(t.Context(), cfg, "v0.11.0", Options{DryRun: true})
	if err == nil || rep.Stopped.Before != "" || strings.Contains(rep.Text(), "stopped before") {
		t.Fatalf("err %v, report %+v", err, rep)
	}
}

// A stop before a step the run does not have is a mistake of the caller, refused before
// anything runs.
func TestStopBeforeAnUnknownStep(t *testing.T) {
	w := newWorld(t, teskrepo.Options{})
	w.repo.Release("v0.11.0")
	cfg := w.config()
	cfg.Stop = Stop{Before: "bulid"}
	_, err := Run(t.Context(), cfg, "v0.11.0", Options{DryRun: true})
	if err == nil || !strings.Contains(err.Error(), `no step "bulid"`) {
		t.Fatalf("err = %v", err)
	}
	if n := len(w.repo.Sim.Requests()); n != 0 {
		t.Errorf("%d GitHub request(s) before the refusal", n)
	}
}

// The source step fetches the tagged tree itself: a git host that lists the tag but fails
// to serve its commit fails that step, before anything is built.
func TestSourceFetchFailureIsTheSourceStep(t *testing.T) {
	w := newWorld(t, teskrepo.Options{})
	w.repo.Release("v0.11.0")
	w.program = func(e *engine.Engine) {
		e.OnField(engine.FieldRule{Type: "Directory", Field: "entries", ChainContains: teskrepo.CommitChain(w.repo.GH.Tag("v0.11.0")),
			Err: "failed to fetch remote: upload-pack: not our ref"})
	}
	w.freshEngine()
	rep, err := w.run("v0.11.0", Options{DryRun: true})
	if err == nil || flow.FailedStep(err) != StepSource || !strings.Contains(err.Error(), "fetching commit "+w.repo.GH.Tag("v0.11.0")) ||
		!strings.Contains(err.Error(), "not our ref") {
		t.Fatalf("err = %v", err)
	}
	if rep.Failed != StepSource || len(w.e.Graph().Builds()) != 0 {
		t.Errorf("report %+v, builds %+v", rep, w.e.Graph().Builds())
	}
}
