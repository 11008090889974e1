package githubcmd

import (
	"context"
	"time"
)

// CallByName asks the command for any method, even one github.Calls lacks.
func (c *Client) CallByName(ctx context.Context, method string, args []any, results ...any) error {
	return c.call(ctx, method, args, results...)
}

// WithCoalesceWindow is c waiting d for calls to join the first one's run: a test that
// counts runs gives the calls it starts together far more time than they need.
func (c *Client) WithCoalesceWindow(d time.Duration) *Client {
	c.window = d
	return c
}
