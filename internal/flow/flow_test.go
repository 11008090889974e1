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
