package jobs

import (
	"context"
	"sync"
	"time"

	"dagger/shipyard/internal/fanout"
)

// Table runs a flow's jobs and keeps one row per job, in the order the jobs were given, so
// both systems' CI declare and run their jobs one way. A failed job is its row, never the
// run's error: it neither stops nor hides the others.
type Table struct {
	ctx   context.Context // the caller's, for the row of a job a cancel kept from starting
	group *fanout.Group

	mu   sync.Mutex
	rows []JobResult
}

// NewTable returns an empty table whose jobs run concurrently under ctx.
func NewTable(ctx context.Context) *Table {
	return &Table{ctx: ctx, group: fanout.New(ctx, 0)}
}

// Go starts a job; its row is recorded, timed, when it ends.
func (t *Table) Go(name string, run func(ctx context.Context) error) {
	i := t.Record(JobResult{Name: name})
	t.group.Go(func(ctx context.Context) error {
		start := time.Now()
		err := run(ctx)
		t.set(i, Result(name, time.Since(start), err))
		return nil
	})
}

// Do runs a job now, before any given after it, and records its row. Its error says
// whether the jobs that need it can run.
func (t *Table) Do(name string, run func(ctx context.Context) error) error {
	start := time.Now()
	err := run(t.ctx)
	t.Record(Result(name, time.Since(start), err))
	return err
}

// Skip records a skipped row, for why, for each job named.
func (t *Table) Skip(why string, names ...string) {
	for _, name := range names {
		t.Record(JobResult{Name: name, Status: Skipped, Reason: why})
	}
}

// Record adds the row of a job that does not run (skipped, or failed before it could
// start) and returns its place.
func (t *Table) Record(row JobResult) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rows = append(t.rows, row)
	return len(t.rows) - 1
}

func (t *Table) set(i int, row JobResult) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rows[i] = row
}

// Wait waits for every job and returns the rows in the order given. A job a cancel kept
// from starting is a failed row carrying the cancel, never an empty one a summary would
// not count, and the cancel is Wait's error.
func (t *Table) Wait() ([]JobResult, error) {
	err := t.group.Wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, row := range t.rows {
		if row.Status == "" {
			t.rows[i] = Result(row.Name, 0, t.ctx.Err())
		}
	}
	return t.rows, err
}
