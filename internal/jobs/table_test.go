package jobs

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestTable: rows keep the order the jobs were given whatever order they end in; a failed
// job is its row and never the run's error; Do runs before what follows and returns its
// error; Skip and Record add rows of jobs that do not run.
func TestTable(t *testing.T) {
	failing := func(context.Context) error { return errors.New("ruff: error: E501") }
	passing := func(context.Context) error { return nil }
	tests := []struct {
		name    string
		declare func(*Table) error
		want    []string // name=status per row, in order
	}{
		{"rows in the order given, a failure is its row",
			func(tb *Table) error {
				tb.Go("lint", failing)
				tb.Go("test", passing)
				return nil
			}, []string{"lint=failed", "test=passed"}},
		{"a failed Do returns its error, the jobs after it are skipped",
			func(tb *Table) error {
				err := tb.Do("install", failing)
				tb.Skip("the install failed", "lint", "test")
				return err
			}, []string{"install=failed", "lint=skipped", "test=skipped"}},
		{"Record keeps a row as given",
			func(tb *Table) error {
				tb.Record(Result("Images", 0, errors.New("no Dockerfile")))
				tb.Go("Docs", passing)
				return nil
			}, []string{"Images=failed", "Docs=passed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := NewTable(context.Background())
			doErr := tt.declare(tb)
			rows, err := tb.Wait()
			if err != nil {
				t.Fatalf("Wait: %v (a failed job is its row, not the run's error)", err)
			}
			var got []string
			for _, r := range rows {
				got = append(got, r.Name+"="+string(r.Status))
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("rows %v, want %v", got, tt.want)
			}
			if (doErr != nil) != (tt.want[0] == "install=failed") {
				t.Errorf("Do returned %v", doErr)
			}
			for _, r := range rows {
				if r.Status == Failed && r.Reason == "" {
					t.Errorf("%s failed without its first error line", r.Name)
				}
			}
		})
	}
}

// TestTableCancelled: a job a cancel kept from starting is a failed row carrying the
// cancel, never an empty one a summary would not count, and Wait says it was cancelled.
func TestTableCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tb := NewTable(ctx)
	ran := false
	tb.Go("lint", func(context.Context) error { ran = true; return nil })
	rows, err := tb.Wait()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Wait = %v, want the cancel", err)
	}
	if ran || len(rows) != 1 || rows[0].Name != "lint" || rows[0].Status != Failed {
		t.Errorf("ran %v, rows %+v; want one failed row, lint, that never ran", ran, rows)
	}
	if (Summary{Jobs: rows}).Err() == nil {
		t.Error("the summary of a cancelled run passed")
	}
}
