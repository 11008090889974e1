package fanout

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

func TestEach(t *testing.T) {
	tests := []struct {
		name     string
		limit, n int
		fail     map[int]bool
		wantErr  string
		wantMax  int32 // the most pieces that may run at once
	}{
		{"all pass", 0, 5, nil, "", 5},
		{"every failure is joined in order", 0, 4, map[int]bool{3: true, 1: true}, "piece 1\npiece 3", 4},
		{"a limit bounds how many run at once", 2, 6, map[int]bool{5: true}, "piece 5", 2},
		{"nothing to do", 3, 0, nil, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var running, most, ran atomic.Int32
			err := Each(context.Background(), tc.limit, tc.n, func(_ context.Context, i int) error {
				now := running.Add(1)
				defer running.Add(-1)
				for {
					m := most.Load()
					if now <= m || most.CompareAndSwap(m, now) {
						break
					}
				}
				time.Sleep(2 * time.Millisecond)
				ran.Add(1)
				if tc.fail[i] {
					return fmt.Errorf("piece %d", i)
				}
				return nil
			})
			if got := ran.Load(); got != int32(tc.n) {
				t.Errorf("%d of %d pieces ran", got, tc.n)
			}
			if (err == nil) != (tc.wantErr == "") || (err != nil && err.Error() != tc.wantErr) {
				t.Errorf("err %v, want %q", err, tc.wantErr)
			}
			if most.Load() > tc.wantMax {
				t.Errorf("%d ran at once, want at most %d", most.Load(), tc.wantMax)
			}
		})
	}
}

func TestEachStopsStartingWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	err := Each(ctx, 1, 4, func(_ context.Context, i int) error {
		ran.Add(1)
		cancel() // the first piece cancels: the others, not started, do not run
		return nil
	})
	if ran.Load() != 1 || !errors.Is(err, context.Canceled) {
		t.Errorf("ran %d, err %v", ran.Load(), err)
	}
}

// walk is a tree for the recursive tests: each node gives its children to the group.
type walk struct {
	fanout, depth int
}

func (w walk) nodes() int {
	n, level := 0, 1
	for range w.depth + 1 {
		n += level
		level *= w.fanout
	}
	return n
}

func TestGroup(t *testing.T) {
	tests := []struct {
		name     string
		limit    int
		walk     walk
		fail     func(depth, child int) bool
		failFast bool
		wantErr  string
		wantRan  int // -1: the whole tree
		wantMax  int32
	}{
		{"a recursive walk under a limit of one finishes", 1, walk{3, 3}, nil, false, "", -1, 1},
		{"a recursive walk under a small limit finishes", 2, walk{2, 5}, nil, false, "", -1, 2},
		{"no limit", 0, walk{2, 3}, nil, false, "", -1, 15},
		{
			"failures are joined in the order the pieces were given", 1, walk{2, 1},
			func(depth, child int) bool { return depth == 1 }, false,
			"depth 1 child 0\ndepth 1 child 1", -1, 1,
		},
		{
			"fail fast: the first failure stops what has not started", 1, walk{3, 2},
			func(depth, child int) bool { return depth == 1 && child == 0 }, true,
			"depth 1 child 0", 2, 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var running, most, ran atomic.Int32
			g := New(context.Background(), tc.limit)
			if tc.failFast {
				g.FailFast()
			}
			var visit func(depth, child int) func(context.Context) error
			visit = func(depth, child int) func(context.Context) error {
				return func(context.Context) error {
					now := running.Add(1)
					defer running.Add(-1)
					for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
					}
					ran.Add(1)
					if depth < tc.walk.depth {
						for c := range tc.walk.fanout {
							g.Go(visit(depth+1, c)) // given while this piece holds a slot
						}
					}
					time.Sleep(time.Millisecond)
					if tc.fail != nil && tc.fail(depth, child) {
						return fmt.Errorf("depth %d child %d", depth, child)
					}
					return nil
				}
			}
			g.Go(visit(0, 0))
			done := make(chan error, 1)
			go func() { done <- g.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the walk did not finish: a piece waits for a slot it cannot get")
			}
			want := tc.wantRan
			if want < 0 {
				want = tc.walk.nodes()
			}
			if got := int(ran.Load()); got != want {
				t.Errorf("%d pieces ran, want %d", got, want)
			}
			if (err == nil) != (tc.wantErr == "") || (err != nil && err.Error() != tc.wantErr) {
				t.Errorf("err %v, want %q", err, tc.wantErr)
			}
			if most.Load() > tc.wantMax {
				t.Errorf("%d ran at once, want at most %d", most.Load(), tc.wantMax)
			}
		})
	}
}

// TestGroupStartsNothingAfterCancel: pieces queued, or given, after the context is done
// fail with its error instead of running, and the error says so.
func TestGroupStartsNothingAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := New(ctx, 1)
	var ran atomic.Int32
	for range 3 {
		g.Go(func(context.Context) error {
			ran.Add(1)
			cancel()
			g.Go(func(context.Context) error { ran.Add(1); return nil }) // given after the cancel
			return nil
		})
	}
	err := g.Wait()
	if ran.Load() != 1 || !errors.Is(err, context.Canceled) {
		t.Errorf("ran %d, err %v", ran.Load(), err)
	}
}

// TestGroupPiecesSeeTheCancel: a running piece's context is the group's, so a caller's
// cancel reaches work in flight.
func TestGroupPiecesSeeTheCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := New(ctx, 0)
	started := make(chan struct{})
	g.Go(func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	})
	<-started
	cancel()
	if err := g.Wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
}
