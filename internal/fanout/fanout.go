// Package fanout runs independent pieces of work concurrently, one way everywhere: every
// piece runs to its end (one failure never hides another's), the errors are joined in the
// pieces' order, at most a given number run at once, and a piece not yet started when the
// context is cancelled does not start.
package fanout

import (
	"context"
	"errors"

	"golang.org/x/sync/errgroup"
)

// Each runs f for every i in 0..n-1, at most limit at once (limit <= 0: all at once), and
// returns the errors joined in index order. A piece that has not started when ctx is done
// fails with ctx's error instead of running.
func Each(ctx context.Context, limit, n int, f func(ctx context.Context, i int) error) error {
	errs := make([]error, n)
	var g errgroup.Group
	if limit > 0 {
		g.SetLimit(limit)
	}
	for i := range n {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				errs[i] = err
				return nil
			}
			errs[i] = f(ctx, i)
			return nil // errs keeps every failure; the group's first-error-only result is not used
		})
	}
	_ = g.Wait() // every Go func returns nil
	return errors.Join(errs...)
}
