package github

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// MayHaveHappened marks an error as a write's whose outcome is unknown, keeps what it
// wraps, and leaves a canceled call as the caller's choice.
func TestMayHaveHappened(t *testing.T) {
	lost := errors.New("exit code 137: killed")
	for _, tt := range []struct {
		name    string
		err     error
		unknown bool
		is      error
	}{
		{name: "no error", err: nil},
		{name: "a lost run", err: lost, unknown: true, is: lost},
		{name: "already unknown", err: &APIError{Endpoint: "POST /x", StatusCode: 502}, unknown: true},
		{name: "canceled", err: fmt.Errorf("run: %w", context.Canceled), is: context.Canceled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := MayHaveHappened(tt.err)
			if (got == nil) != (tt.err == nil) || OutcomeUnknown(got) != tt.unknown {
				t.Errorf("MayHaveHappened(%v) = %v, outcome unknown %v; want %v", tt.err, got, OutcomeUnknown(got), tt.unknown)
			}
			if tt.is != nil && !errors.Is(got, tt.is) {
				t.Errorf("%v no longer wraps %v", got, tt.is)
			}
		})
	}
}
