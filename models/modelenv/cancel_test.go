package modelenv

import (
	"context"
	"testing"

	"dagger/shipyard/internal/jobs"
)

// TestCancelledChecksAreFailedRows: a check a cancel kept from starting is a failed row of
// the summary, never an empty one that a summary would not count as failed.
func TestCancelledChecksAreFailedRows(t *testing.T) {
	env, e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	checks := []Check{{Name: "lint", Commands: [][]string{{"make", "lint"}}}, {Name: "test", Commands: [][]string{{"make", "test"}}}}
	rows := RunEach(ctx, env.Client.Container(), "keda: ", checks)
	if len(rows) != 2 || rows[0].Name != "keda: lint" || rows[1].Name != "keda: test" {
		t.Fatalf("rows %+v", rows)
	}
	for _, r := range rows {
		if r.Status != jobs.Failed {
			t.Errorf("%s: %s, want failed", r.Name, r.Status)
		}
	}
	if err := (jobs.Summary{Jobs: rows}).Err(); err == nil {
		t.Error("the summary of cancelled checks passed")
	}
	if execs := e.Graph().Execs(); len(execs) != 0 {
		t.Errorf("a cancelled run ran %d command(s)", len(execs))
	}
}
