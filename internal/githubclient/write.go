package githubclient

import (
	"context"

	"dagger/shipyard/internal/github"
)

// WriteThenVerify is github.WriteThenVerify within the client's retry policy.
func (c *Client) WriteThenVerify(ctx context.Context, write func(ctx context.Context) error, readBack func(ctx context.Context) (done bool, err error)) error {
	return github.WriteThenVerify(ctx, github.WriteRetry{MaxAttempts: c.t.policy.MaxAttempts, Wait: func(ctx context.Context, attempt int) error {
		return c.t.sleep(ctx, c.t.backoff(attempt))
	}}, write, readBack)
}
