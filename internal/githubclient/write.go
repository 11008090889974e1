package githubclient

import (
	"context"
	"fmt"

	"dagger/shipyard/internal/github"
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
		if err == nil || !github.OutcomeUnknown(err) {
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
