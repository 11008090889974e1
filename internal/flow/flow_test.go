package flow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

type state struct{ trail []string }

func step(name string, writes bool, fail error) Step[state] {
	return Step[state]{Name: name, Writes: writes, Next: "after " + name,
		Run: func(_ context.Context, s *state) error {
			s.trail = append(s.trail, name)
			return fail
		}}
}

func TestRun(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name     string
		dryRun   bool
		steps    []Step[state]
		wantRan  []string
		wantStep string
		wantNext string
	}{
		{"all pass", false, []Step[state]{step("plan", false, nil), step("push", true, nil), step("tag", true, nil)},
			[]string{"plan", "push", "tag"}, "", ""},
		{"stops at the failure", false, []Step[state]{step("plan", false, nil), step("push", true, boom), step("tag", true, nil)},
			[]string{"plan"}, "push", "after push"},
		{"dry run stops before the first write", true, []Step[state]{step("plan", false, nil), step("build", false, nil), step("push", true, nil), step("scan", false, nil)},
			[]string{"plan", "build"}, "", ""},
		{"dry run still fails a reading step", true, []Step[state]{step("plan", false, boom), step("push", true, nil)},
			nil, "plan", "after plan"},
		{"a failure's own advice replaces the step's", false, []Step[state]{step("plan", false, nil), step("push", true, Advise(boom, "push advice"))},
			[]string{"plan"}, "push", "push advice"},
		{"an inner flow's failure is named by the step that ran it", false,
			[]Step[state]{step("outer", false, &Error{Flow: "inner flow", Step: "inner", Next: "inner advice", Err: boom})},
			nil, "outer", "after outer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logged []string
			r := Runner{Flow: "release v1.0.0", DryRun: tc.dryRun, Log: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }}
			s := &state{}
			ran, err := Run(context.Background(), r, tc.steps, s)
			if !slices.Equal(ran, tc.wantRan) {
				t.Errorf("ran %v, want %v", ran, tc.wantRan)
			}
			if got := FailedStep(err); got != tc.wantStep {
				t.Errorf("failed step %q, want %q (err %v)", got, tc.wantStep, err)
			}
			if tc.wantStep != "" {
				var fe *Error
				if !errors.As(err, &fe) || fe.Next != tc.wantNext || !errors.Is(err, boom) {
					t.Errorf("err = %#v", err)
				}
				if !strings.HasPrefix(err.Error(), "release v1.0.0: "+tc.wantStep+": ") || !strings.Contains(err.Error(), "boom") ||
					!strings.HasSuffix(err.Error(), "next: "+tc.wantNext) {
					t.Errorf("message %q", err.Error())
				}
			}
			for _, name := range tc.wantRan {
				if !slices.Contains(logged, "release v1.0.0: "+name) {
					t.Errorf("step %s not logged: %v", name, logged)
				}
			}
			if tc.dryRun && tc.wantStep == "" && !strings.Contains(strings.Join(logged, "\n"), "dry run: stopping before push") {
				t.Errorf("the dry run's stop is not logged: %v", logged)
			}
		})
	}
}

func TestRunRefusesAnUnnamedStep(t *testing.T) {
	_, err := Run(context.Background(), Runner{Flow: "f"}, []Step[state]{{Name: "", Run: func(context.Context, *state) error { return nil }}}, &state{})
	if err == nil {
		t.Fatal("want an error for a step without a name")
	}
}

func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &state{}
	_, err := Run(ctx, Runner{Flow: "f"}, []Step[state]{step("plan", false, nil)}, s)
	if FailedStep(err) != "plan" || !errors.Is(err, context.Canceled) || len(s.trail) != 0 {
		t.Errorf("err %v, trail %v", err, s.trail)
	}
}

func TestAdviseNil(t *testing.T) {
	if Advise(nil, "n") != nil {
		t.Error("Advise(nil) is not nil")
	}
	if FailedStep(errors.New("plain")) != "" {
		t.Error("a plain error names a step")
	}
}

func TestNames(t *testing.T) {
	got := Names([]Step[state]{step("plan", false, nil), step("push", true, nil)})
	if !slices.Equal(got, []string{"plan", "push"}) {
		t.Errorf("Names = %v", got)
	}
}

func TestDryRunBodies(t *testing.T) {
	dry := func(name string) Step[state] {
		st := step(name, true, nil)
		st.DryRun = func(_ context.Context, s *state) error {
			s.trail = append(s.trail, name+" (dry)")
			return nil
		}
		return st
	}
	steps := []Step[state]{step("plan", false, nil), dry("push"), step("scan", false, nil), step("sign", true, nil), step("verify", false, nil)}
	tests := []struct {
		dryRun    bool
		wantTrail []string
	}{
		{false, []string{"plan", "push", "scan", "sign", "verify"}},
		{true, []string{"plan", "push (dry)", "scan"}},
	}
	for _, tc := range tests {
		s := &state{}
		ran, err := Run(context.Background(), Runner{Flow: "f", DryRun: tc.dryRun}, steps, s)
		if err != nil || !slices.Equal(s.trail, tc.wantTrail) || len(ran) != len(tc.wantTrail) {
			t.Errorf("dry run %t: ran %v, trail %v, err %v; want %v", tc.dryRun, ran, s.trail, err, tc.wantTrail)
		}
	}
}

func TestDoneEndsTheFlow(t *testing.T) {
	s := &state{}
	ran, err := Run(context.Background(), Runner{Flow: "f"}, []Step[state]{step("plan", false, Done), step("push", true, nil)}, s)
	if err != nil || !slices.Equal(ran, []string{"plan"}) || !slices.Equal(s.trail, []string{"plan"}) {
		t.Errorf("ran %v, trail %v, err %v", ran, s.trail, err)
	}
}

func TestRetry(t *testing.T) {
	lost := errors.New("another run moved the branch")
	tests := []struct {
		name       string
		failures   []error // what push returns, attempt by attempt
		attempts   int
		wantErr    error
		wantTrail  []string
		wantAgains int
	}{
		{"a lost race runs the steps again", []error{fmt.Errorf("push: %w", lost), nil}, 3, nil,
			[]string{"plan", "push", "plan", "push", "tag"}, 1},
		{"until the attempts run out", []error{lost, lost, lost}, 2, lost,
			[]string{"plan", "push", "plan", "push"}, 1},
		{"another error is not retried", []error{errors.New("boom"), nil}, 3, nil,
			[]string{"plan", "push"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &state{}
			attempt, agains := 0, 0
			push := Step[state]{Name: "push", Writes: true, Run: func(_ context.Context, s *state) error {
				s.trail = append(s.trail, "push")
				attempt++
				return tc.failures[attempt-1]
			}}
			r := Runner{Flow: "f", Retry: Retry{On: lost, Attempts: tc.attempts, Again: func(error) { agains++ }}}
			_, err := Run(context.Background(), r, []Step[state]{step("plan", false, nil), push, step("tag", true, nil)}, s)
			if !slices.Equal(s.trail, tc.wantTrail) || agains != tc.wantAgains {
				t.Errorf("trail %v, %d retries; want %v, %d", s.trail, agains, tc.wantTrail, tc.wantAgains)
			}
			if tc.wantErr != nil && (!errors.Is(err, tc.wantErr) || FailedStep(err) != "push") {
				t.Errorf("err %v, want %v at push", err, tc.wantErr)
			}
			if tc.wantErr == nil && tc.wantAgains > 0 && err != nil {
				t.Errorf("err %v", err)
			}
		})
	}
}

func TestStopBefore(t *testing.T) {
	steps := []Step[state]{step("plan", false, nil), step("build", false, nil), step("push", true, nil)}
	tests := []struct {
		before    string
		wantRan   []string
		wantError string
	}{
		{"build", []string{"plan"}, ""},
		{"plan", nil, ""},
		{"", []string{"plan", "build", "push"}, ""},
		{"bulid", nil, `f: no step "bulid" to stop before`},
	}
	for _, tc := range tests {
		s := &state{}
		ran, err := Run(context.Background(), Runner{Flow: "f", StopBefore: tc.before}, steps, s)
		if !slices.Equal(ran, tc.wantRan) || !slices.Equal(s.trail, tc.wantRan) {
			t.Errorf("stop before %q: ran %v, trail %v, want %v", tc.before, ran, s.trail, tc.wantRan)
		}
		if (err == nil) != (tc.wantError == "") || (err != nil && err.Error() != tc.wantError) {
			t.Errorf("stop before %q: err %v, want %q", tc.before, err, tc.wantError)
		}
	}
}

// TestOneStepFlowNamesItOnce: a flow that runs one step of its own name (sign, run alone)
// names it once in its error and its log; any other flow names both.
func TestOneStepFlowNamesItOnce(t *testing.T) {
	boom := func(context.Context, *struct{}) error { return errors.New("boom") }
	for _, tc := range []struct{ flow, wantErr, wantLog string }{
		{"sign", "sign: boom", "sign"},
		{"tag-images", "tag-images: sign: boom", "tag-images: sign"},
	} {
		var logged []string
		r := Runner{Flow: tc.flow, Log: func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }}
		_, err := Run(context.Background(), r, []Step[struct{}]{{Name: "sign", Run: boom}}, &struct{}{})
		if err == nil || err.Error() != tc.wantErr || FailedStep(err) != "sign" {
			t.Errorf("flow %s: err = %v, want %q", tc.flow, err, tc.wantErr)
		}
		if len(logged) != 1 || logged[0] != tc.wantLog {
			t.Errorf("flow %s logged %q, want %q", tc.flow, logged, tc.wantLog)
		}
	}
}

// TestStepsLogUnderTheNameTheRunnerGives: a step's lines carry the flow's and the step's
// names without the step writing them, once in a one-step flow of its own name; a nested
// flow's step logs under its own names; outside a step, or without a Log, nothing is logged.
func TestStepsLogUnderTheNameTheRunnerGives(t *testing.T) {
	logging := func(n int) func(ctx context.Context, _ *struct{}) error {
		return func(ctx context.Context, _ *struct{}) error {
			Logf(ctx, "%d signature(s)", n)
			return nil
		}
	}
	for _, tc := range []struct {
		flow string
		want []string
	}{
		{"publish-dev", []string{"publish-dev: sign", "publish-dev: sign: 2 signature(s)"}},
		{"sign", []string{"sign", "sign: 2 signature(s)"}},
	} {
		var logged []string
		r := Runner{Flow: tc.flow, Log: func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }}
		if _, err := Run(context.Background(), r, []Step[struct{}]{{Name: "sign", Run: logging(2)}}, &struct{}{}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(logged, tc.want) {
			t.Errorf("flow %s logged %q, want %q", tc.flow, logged, tc.want)
		}
	}

	var logged []string
	log := func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	inner := func(ctx context.Context, s *struct{}) error {
		_, err := Run(ctx, Runner{Flow: "tag-images", Log: log}, []Step[struct{}]{{Name: "tag", Run: logging(1)}}, s)
		Logf(ctx, "after the inner flow")
		return err
	}
	if _, err := Run(context.Background(), Runner{Flow: "release v1", Log: log}, []Step[struct{}]{{Name: "tags", Run: inner}}, &struct{}{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"release v1: tags", "tag-images: tag", "tag-images: tag: 1 signature(s)", "release v1: tags: after the inner flow"}
	if !slices.Equal(logged, want) {
		t.Errorf("nested flows logged %q, want %q", logged, want)
	}

	Logf(context.Background(), "outside any step") // no runner: nothing to log to, no panic
	if _, err := Run(context.Background(), Runner{Flow: "quiet"}, []Step[struct{}]{{Name: "s", Run: logging(3)}}, &struct{}{}); err != nil {
		t.Fatal(err)
	}
}

// A flow without a name would log and fail as ": step: …": refused before any step runs.
func TestRunRefusesAFlowWithoutAName(t *testing.T) {
	s := &state{}
	_, err := Run(context.Background(), Runner{}, []Step[state]{step("sign", true, nil)}, s)
	if err == nil || !strings.Contains(err.Error(), "a flow without a name (steps [sign])") || len(s.trail) != 0 {
		t.Errorf("err = %v, ran %v", err, s.trail)
	}
}
