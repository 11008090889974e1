package github

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
)

// WriteThenVerify performs a write whose outcome may be unknown. When write fails with a
// 5xx or a network error after the request may have reached GitHub, the write may or may
// not have happened, so it reads back first and re-issues the write only when readBack
// proves it did not happen (done == false). It repeats within the client's retry budget
// and returns nil once the write is known to be done. Definite failures (4xx, rate
// limits, cancellation) are returned as they are.
func (c *Client) WriteThenVerify(ctx context.Context, write func(ctx context.Context) error, readBack func(ctx context.Context) (done bool, err error)) error {
	err := write(ctx)
	for attempt := 1; ; attempt++ {
		if err == nil || !OutcomeUnknown(err) {
			return err
		}
		if attempt >= c.t.policy.MaxAttempts {
			return fmt.Errorf("github: write outcome still unknown after %d attempt(s): %w", attempt, err)
		}
		// Give GitHub a moment to finish a write that did arrive before asking.
		if serr := c.t.sleep(ctx, c.t.backoff(attempt)); serr != nil {
			return fmt.Errorf("github: write outcome unknown (%w), and waiting to verify it stopped: %w", err, serr)
		}
		done, rerr := readBack(ctx)
		if rerr != nil {
			return fmt.Errorf("github: write outcome unknown (%w), and reading back failed: %w", err, rerr)
		}
		if done {
			return nil
		}
		err = write(ctx)
	}
}

// OutcomeUnknown reports whether err leaves open whether a write took effect: a 5xx
// answer (e.g. a gateway that lost the response) or a transport failure after sending.
// Cancellation by the caller is not unknown in this sense: the caller chose to stop.
func OutcomeUnknown(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, errRefused) {
		return false
	}
	if code := statusOf(err); code != 0 {
		return code >= 500 && code != http.StatusNotImplemented
	}
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded)
}
