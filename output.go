package main

import (
	"fmt"
	"os"

	"dagger/shipyard/internal/output"
)

// What a function prints: JSON results and handoffs, and progress lines on stderr.

// toJSON renders a function's result for the next job or a machine reader.
func toJSON(v any) (string, error) {
	return output.Render(output.JSON, v, nil)
}

// printed is what a function prints of its last step: the step's result as JSON (a job's
// handoff in its own form, one line for the next job), or the step's error.
func printed(v any, err error) (string, error) {
	if err != nil {
		return "", err
	}
	if h, ok := v.(interface{ JSON() (string, error) }); ok {
		return h.JSON()
	}
	return toJSON(v)
}

// logToStderr is a flow's log on the call's stderr, which dagger shows with the progress.
func logToStderr(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

// reportError is a failed function's report as its error, printed as it is (naming leaves
// it): its reader parses it (--format json), or its header names the function. cause, when
// set, is the error the report is of, which errors.As still finds (release-plan's gates).
type reportError struct {
	report string
	cause  error
}

func (e reportError) Error() string { return e.report }
func (e reportError) Unwrap() error { return e.cause }
