// Package flow runs Shipyard's flows — the release, the release workflow's jobs,
// publish-dev, the model release, model-versions — as declared lists of steps: each step
// has a name that logs and errors use, says whether it writes outside the engine, and
// carries the advice a maintainer needs when it fails. One runner logs every step, wraps a
// failure in one error type with the step and the advice, and stops a dry run before the
// first step that writes.
package flow

import (
	"context"
	"errors"
	"fmt"
)

// Step is one unit of a flow over a state S.
type Step[S any] struct {
	// Name is used in logs, errors, reports and docs.
	Name string
	// Writes is true for a step that changes something outside the engine (a registry, a
	// GitHub repository, Sigstore's log); a dry run stops before the first such step.
	Writes bool
	// Next is what the maintainer does when this step fails.
	Next string
	// Run does the step's work on the flow's state.
	Run func(ctx context.Context, s *S) error
}

// Runner says which flow runs and how.
type Runner struct {
	// Flow names the flow in logs and errors, e.g. "release v0.11.0" or "publish-dev".
	Flow string
	// Log receives one line per step started (nil: none).
	Log func(format string, args ...any)
	// DryRun stops before the first writing step.
	DryRun bool
}

// Error is a failed step: which flow, which step, what went wrong, and what next.
type Error struct {
	Flow, Step, Next string
	Err              error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s: %s: %v", e.Flow, e.Step, e.Err)
	if e.Next != "" {
		msg += "\n  next: " + e.Next
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Advise gives err the advice for this very failure, in place of the failed step's Next: a
// step with several remedies returns each failure with its own. The step's name is still
// added by Run alone. A nil err stays nil.
func Advise(err error, next string) error {
	if err == nil {
		return nil
	}
	return &advised{err: err, next: next}
}

// advised is an error with the advice Run puts in its Error.
type advised struct {
	err  error
	next string
}

func (a *advised) Error() string { return a.err.Error() }
func (a *advised) Unwrap() error { return a.err }

// fail makes err the failure of step st in the flow: the advice err carries, or the step's.
func fail[S any](flowName string, st Step[S], err error) *Error {
	next := st.Next
	var a *advised
	if errors.As(err, &a) {
		next = a.next
	}
	return &Error{Flow: flowName, Step: st.Name, Next: next, Err: err}
}

// Names are the names of steps, in their order: what a flow declares.
func Names[S any](steps []Step[S]) []string {
	names := make([]string, len(steps))
	for i, st := range steps {
		names[i] = st.Name
	}
	return names
}

// FailedStep returns the step an error names, or "" when it names none.
func FailedStep(err error) string {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Step
	}
	return ""
}

// Run runs the steps in order on state and returns the names of the steps that ran. It
// stops at the first failure, returned as an *Error that names the flow and the step of
// this list (also when the step ran a flow of its own that failed: a step is named by the
// flow that declares it), and, on a dry run, before the first step that writes. A
// cancelled context stops it before the next step.
func Run[S any](ctx context.Context, r Runner, steps []Step[S], state *S) ([]string, error) {
	var ran []string
	for _, st := range steps {
		if st.Run == nil || st.Name == "" {
			return ran, fmt.Errorf("%s: a step without a name or a run function (after %v)", r.Flow, ran)
		}
		if r.DryRun && st.Writes {
			r.logf("%s: dry run: stopping before %s, which writes", r.Flow, st.Name)
			return ran, nil
		}
		if err := ctx.Err(); err != nil {
			return ran, fail(r.Flow, st, err)
		}
		r.logf("%s: %s", r.Flow, st.Name)
		if err := st.Run(ctx, state); err != nil {
			return ran, fail(r.Flow, st, err)
		}
		ran = append(ran, st.Name)
	}
	return ran, nil
}

func (r Runner) logf(format string, args ...any) {
	if r.Log != nil {
		r.Log(format, args...)
	}
}
