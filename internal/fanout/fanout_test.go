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
