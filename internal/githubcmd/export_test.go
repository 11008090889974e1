package githubcmd

import "context"

// CallByName asks the command for any method, even one github.Calls lacks.
func (c *Client) CallByName(ctx context.Context, method string, args []any, results ...any) error {
	return c.call(ctx, method, args, results...)
}
