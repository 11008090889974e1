// Package flow runs Shipyard's flows — the release, the release workflow's jobs,
// publish-dev, the model release, model-versions — as declared lists of steps: each step
// has a name that logs and errors use, says whether it writes outside the engine, and
// carries the advice a maintainer needs when it fails. One runner logs every step, wraps a
// failure in one error type with the step and the advice (it alone names steps), runs a
// step's dry-run body on a dry run and stops before the first writing step without one,
// ends a flow early on Done, and runs the list again on a named error (Retry).
package flow

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	// DryRun, when set, is what the step does on a dry run in place of Run: what can be
	// done without writing (a scan of the built images instead of the pushed ones, the
	// digests a push would give). A dry run goes on past a writing step that has one.
	DryRun func(ctx context.Context, s *S) error
}

// Runner says which flow runs and how.
type Runner struct {
	// Flow names the flow in logs and errors, e.g. "release v0.11.0" or "publish-dev": the
	// function it is a call of, which its caller (the module) gives; required.
	Flow string
	// Log receives one line per step started (nil: none).
	Log func(format string, args ...any)
	// DryRun runs each step's DryRun body where it has one, and stops before the first
	// writing step that has none.
	DryRun bool
	// Retry runs the whole list again when a step fails with a given error.
	Retry Retry
	// StopBefore, when set, ends the flow with success before the step of that name; a name
	// the list does not declare is refused before any step runs.
	StopBefore string
}

// Retry says when a flow's steps run again from the first: a step failed with an error
// that is On (errors.Is), e.g. another run moved a branch first, while fewer than Attempts
// attempts ran.
type Retry struct {
	On       error
	Attempts int
	// Again is told each failure that starts another attempt (nil: nothing).
	Again func(err error)
}

// Done ends a flow early with success: a step returns it when the flow has nothing more
// to do (nothing to release, say), and the steps after it do not run.
var Done = errors.New("nothing more to do")

// Error is a failed step: which flow, which step, what went wrong, and what next.
type Error struct {
	Flow, Step, Next string
	Err              error
}

// Error names the flow and the step, once each: a flow that runs one step of its own name
// (sign, run alone) reads "sign: …".
func (e *Error) Error() string {
	msg := fmt.Sprintf("%s: %s: %v", e.Flow, e.Step, e.Err)
	if e.Flow == e.Step {
		msg = fmt.Sprintf("%s: %v", e.Step, e.Err)
	}
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
// flow that declares it), and, on a dry run, before the first step that writes and has
// no DryRun body, or before r.StopBefore. A step that returns Done ends the flow with
// success. A failure that is
// r.Retry.On runs the steps again from the first. A cancelled context stops it before the
// next step.
func Run[S any](ctx context.Context, r Runner, steps []Step[S], state *S) ([]string, error) {
	if r.Flow == "" {
		return nil, fmt.Errorf("a flow without a name (steps %v): its caller names it, as the function it is a call of", Names(steps))
	}
	if r.StopBefore != "" && !slices.Contains(Names(steps), r.StopBefore) {
		return nil, fmt.Errorf("%s: no step %q to stop before", r.Flow, r.StopBefore)
	}
	var ran []string
	for attempt := 1; ; attempt++ {
		done, err := once(ctx, r, steps, state)
		ran = append(ran, done...)
		if r.Retry.On == nil || !errors.Is(err, r.Retry.On) || attempt >= r.Retry.Attempts {
			return ran, err
		}
		r.logf("%s: %v; running the steps again (attempt %d of %d)", r.Flow, errors.Unwrap(err), attempt+1, r.Retry.Attempts)
		if r.Retry.Again != nil {
			r.Retry.Again(err)
		}
	}
}

// once runs the steps once, as Run describes.
func once[S any](ctx context.Context, r Runner, steps []Step[S], state *S) ([]string, error) {
	var ran []string
	for _, st := range steps {
		if st.Run == nil || st.Name == "" {
			return ran, fmt.Errorf("%s: a step without a name or a run function (after %v)", r.Flow, ran)
		}
		if st.Name == r.StopBefore {
			r.logf("%s: stopping before %s, as asked", r.Flow, st.Name)
			return ran, nil
		}
		body := st.Run
		if r.DryRun && st.DryRun != nil {
			body = st.DryRun
		} else if r.DryRun && st.Writes {
			r.logf("%s: dry run: stopping before %s, which writes", r.Flow, st.Name)
			return ran, nil
		}
		if err := ctx.Err(); err != nil {
			return ran, fail(r.Flow, st, err)
		}
		name := stepName(r.Flow, st.Name)
		r.logf("%s", name)
		err := body(context.WithValue(ctx, stepLogKey{}, stepLog{r: r, name: name}), state)
		if errors.Is(err, Done) {
			return append(ran, st.Name), nil
		}
		if err != nil {
			return ran, fail(r.Flow, st, err)
		}
		ran = append(ran, st.Name)
	}
	return ran, nil
}

// stepName is how logs name step st of flow: once, when a flow runs one step of its own
// name (sign, run alone).
func stepName(flow, st string) string {
	if flow == st {
		return st
	}
	return flow + ": " + st
}

// stepLogKey is the context key of the running step's log (stepLog).
type stepLogKey struct{}

// stepLog is where a step's lines go, with the name the runner gives the step.
type stepLog struct {
	r    Runner
	name string
}

// Logf logs a line of the step that ctx is running, named by the runner as its errors are
// ("publish-dev: sign: 2 signature(s)"), so that no step writes its own name. Outside a
// step, or in a flow without a Log, it logs nothing.
func Logf(ctx context.Context, format string, args ...any) {
	if l, ok := ctx.Value(stepLogKey{}).(stepLog); ok {
		l.r.logf("%s: "+format, append([]any{l.name}, args...)...)
	}
}

func (r Runner) logf(format string, args ...any) {
	if r.Log != nil {
		r.Log(format, args...)
	}
}
