// Package fanout runs independent pieces of work concurrently, one way everywhere: every
// piece runs to its end (one failure never hides another's), the errors are joined in the
// order the pieces were given, at most a given number run at once, and a piece not yet
// started when the context is cancelled does not start.
//
// The limit bounds the running work, never the giving of it: Go does not block, so a
// piece may give further pieces (a recursive walk) without holding a slot while it waits
// for one. errgroup's SetLimit blocks Go instead, which deadlocks such a walk.
package fanout

import (
	"context"
	"errors"
	"sync"
)

// Each runs f for every i in 0..n-1, at most limit at once (limit <= 0: all at once), and
// returns the errors joined in index order. A piece that has not started when ctx is done
// fails with ctx's error instead of running.
func Each(ctx context.Context, limit, n int, f func(ctx context.Context, i int) error) error {
	g := New(ctx, limit)
	for i := range n {
		g.Go(func(ctx context.Context) error { return f(ctx, i) })
	}
	return g.Wait()
}

// Group runs pieces given one at a time, also by pieces already running, at most limit at
// once; pieces beyond the limit wait in a queue and start in the order given.
type Group struct {
	ctx      context.Context
	cancel   context.CancelFunc
	limit    int
	failFast bool

	mu      sync.Mutex
	running int
	queue   []piece
	errs    []error
	first   error // the first failure, for FailFast
	pending sync.WaitGroup
}

type piece struct {
	index int
	run   func(ctx context.Context) error
}

// New returns a group whose pieces get ctx, at most limit running at once (limit <= 0:
// all at once).
func New(ctx context.Context, limit int) *Group {
	ctx, cancel := context.WithCancel(ctx)
	return &Group{ctx: ctx, cancel: cancel, limit: limit}
}

// FailFast makes the group's first failure cancel the pieces' context, so pieces not yet
// started do not start, and Wait return that failure alone: for work that is of no use
// once one piece fails (a tree is not written without every one of its blobs).
func (g *Group) FailFast() *Group {
	g.failFast = true
	return g
}

// Go gives the group a piece; it never blocks. A piece not started when the context is
// done fails with the context's error instead of running. Go must not be called after
// Wait returned, and a piece must not call Wait: it would wait for itself.
func (g *Group) Go(f func(ctx context.Context) error) {
	g.mu.Lock()
	p := piece{index: len(g.errs), run: f}
	g.errs = append(g.errs, nil)
	g.pending.Add(1)
	if g.limit > 0 && g.running >= g.limit {
		g.queue = append(g.queue, p)
		g.mu.Unlock()
		return
	}
	g.running++
	g.mu.Unlock()
	go g.work(p)
}

// work runs p, then the queued pieces, until the queue is empty.
func (g *Group) work(p piece) {
	for {
		err := g.ctx.Err()
		if err == nil {
			err = p.run(g.ctx)
		}
		g.mu.Lock()
		g.errs[p.index] = err
		if err != nil && g.failFast && g.first == nil {
			g.first = err
			g.cancel()
		}
		g.pending.Done()
		if len(g.queue) == 0 {
			g.running--
			g.mu.Unlock()
			return
		}
		p, g.queue = g.queue[0], g.queue[1:]
		g.mu.Unlock()
	}
}

// Wait waits for every piece, also those given while it waits, and returns their errors
// joined in the order the pieces were given (FailFast: the first failure).
func (g *Group) Wait() error {
	g.pending.Wait()
	g.cancel()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.first != nil {
		return g.first
	}
	return errors.Join(g.errs...)
}
