package githubcmd_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"dagger/shipyard/internal/doctor"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/githubcmd"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/githubexec"
)

// Calls made together share one run of the command (`github batch`), and each gets its own
// answer: its results, or its own error as the client's caller reads it. A call alone is
// one run of `github call`, as before.
func TestCallsMadeTogetherShareOneRun(t *testing.T) {
	ctx := context.Background()
	s := newState(t)
	cmd, e, _ := commandClient(t, s.sim.URL, simToken, true)
	cmd = cmd.WithCoalesceWindow(time.Second)

	var wg sync.WaitGroup
	var head, tree string
	var headFound bool
	var releases []github.Release
	var readme []byte
	var headErr, treeErr, relErr, fileErr, missingErr error
	wg.Go(func() { head, headFound, headErr = cmd.BranchHead(ctx, "octo", "demo", "dev") })
	wg.Go(func() { tree, treeErr = cmd.CommitTree(ctx, "octo", "demo", s.mid) })
	wg.Go(func() { releases, relErr = cmd.Releases(ctx, "octo", "demo") })
	wg.Go(func() { readme, _, fileErr = cmd.FileAt(ctx, "octo", "demo", "README.md", "main") })
	wg.Go(func() { _, missingErr = cmd.Releases(ctx, "octo", "gone") })
	wg.Wait()

	if headErr != nil || !headFound || head != s.head {
		t.Errorf("BranchHead: %q %v %v, want %s", head, headFound, headErr, s.head)
	}
	if treeErr != nil || tree != s.midTree {
		t.Errorf("CommitTree: %q %v, want %s", tree, treeErr, s.midTree)
	}
	if relErr != nil || len(releases) != 2 {
		t.Errorf("Releases: %d releases, %v; want 2", len(releases), relErr)
	}
	if fileErr != nil || string(readme) != "hello again\n" {
		t.Errorf("FileAt: %q %v", readme, fileErr)
	}
	var api *github.APIError
	if !errors.As(missingErr, &api) || api.StatusCode != 404 {
		t.Errorf("Releases of a missing repository: %v, want GitHub's 404", missingErr)
	}
	if runs := e.Graph().ExecsWith("github "); len(runs) != 1 || !strings.Contains(strings.Join(runs[0].Args, " "), "github batch") {
		t.Fatalf("%d runs of the command, want one github batch: %v", len(runs), runs)
	}
	if got, sent := cmd.Stats().Requests, int64(len(s.sim.Requests())); got != sent || sent < 5 {
		t.Errorf("stats count %d requests, the server saw %d", got, sent)
	}

	if _, _, err := cmd.BranchHead(ctx, "octo", "demo", "main"); err != nil {
		t.Fatal(err)
	}
	alone := 0
	for _, x := range e.Graph().ExecsWith("github call ") {
		if x.Args[len(x.Args)-1] == "BranchHead" {
			alone++
		}
	}
	if alone != 1 {
		t.Errorf("a call alone: %d runs of github call BranchHead, want 1", alone)
	}
}

// Doctor's concurrent reads go in a few runs, not one per request: about 17 requests in
// waves, each wave one run.
func TestDoctorReadsInFewRuns(t *testing.T) {
	s := newState(t)
	cmd, e, _ := commandClient(t, s.sim.URL, simToken, true)
	cmd = cmd.WithCoalesceWindow(300 * time.Millisecond)
	facts, err := doctor.GatherTesk(context.Background(), cmd, "octo/demo")
	if err != nil {
		t.Fatal(err)
	}
	if facts.Repo != "octo/demo" || len(facts.Environments) == 0 {
		t.Errorf("facts %+v", facts)
	}
	runs := len(e.Graph().ExecsWith("github "))
	if requests := len(s.sim.Requests()); runs == 0 || runs*3 > requests {
		t.Errorf("%d runs of the command for %d requests, want a third as many runs or fewer", runs, requests)
	}
	t.Logf("%d runs for %d requests", runs, len(s.sim.Requests()))
}

// verifiedWrite is a write on s through c, and how to read back whether it happened.
type verifiedWrite func(s *state, c *githubcmd.Client) (write func(context.Context) error, readBack func(context.Context) (bool, error))

// branchAt is the write that sets branch to the commit sha picks (create, or force).
func branchAt(branch string, create bool, sha func(*state) string) verifiedWrite {
	return func(s *state, c *githubcmd.Client) (func(context.Context) error, func(context.Context) (bool, error)) {
		write := func(ctx context.Context) error {
			if create {
				return c.CreateBranch(ctx, "octo", "demo", branch, sha(s))
			}
			return c.UpdateBranch(ctx, "octo", "demo", branch, sha(s), true)
		}
		readBack := func(ctx context.Context) (bool, error) {
			head, found, err := c.BranchHead(ctx, "octo", "demo", branch)
			return found && head == sha(s), err
		}
		return write, readBack
	}
}

// A run lost after it ran (the container killed once its requests reached GitHub) leaves
// the outcome of each write in it unknown, in a batch as in a call alone: the write may
// have happened, so WriteThenVerify reads it back instead of failing, and converges
// without writing again. A read in the same run fails as it did, its outcome known.
func TestARunLostAfterItsWritesLeavesThemUnknown(t *testing.T) {
	ctx := context.Background()
	base := func(s *state) string { return s.base }
	mid := func(s *state) string { return s.mid }
	for _, tt := range []struct {
		name   string
		lost   string          // the command whose first run is lost: call or batch
		writes []verifiedWrite // made together: one batch when more than one
		read   bool            // a read joins them
	}{
		{name: "a batch of two writes and a read", lost: "batch", writes: []verifiedWrite{branchAt("topic", true, base), branchAt("feature", false, mid)}, read: true},
		{name: "a write alone", lost: "call", writes: []verifiedWrite{branchAt("topic", true, base)}},
	} {
		// world is a GitHub and a client whose first run of tt.lost is lost after it ran.
		world := func(t *testing.T) (*state, *githubcmd.Client) {
			s := newState(t)
			c, _, runs := commandClient(t, s.sim.URL, simToken, false)
			runs.InjectFault(githubexec.RunFault{Match: func(x engine.Exec) bool { return x.Args[1] == tt.lost }, Stderr: "killed", Times: 1})
			return s, c.WithCoalesceWindow(time.Second)
		}
		t.Run(tt.name+": the errors", func(t *testing.T) {
			s, c := world(t)
			errs := make([]error, len(tt.writes))
			var readErr error
			var wg sync.WaitGroup
			for i, w := range tt.writes {
				write, _ := w(s, c)
				wg.Go(func() { errs[i] = write(ctx) })
			}
			if tt.read {
				wg.Go(func() { _, readErr = c.Releases(ctx, "octo", "demo") })
			}
			wg.Wait()
			for i, err := range errs {
				if err == nil || !github.OutcomeUnknown(err) || !strings.Contains(err.Error(), "killed") {
					t.Errorf("write %d: %v, want the run's error, its outcome unknown", i+1, err)
				}
			}
			if tt.read && (readErr == nil || github.OutcomeUnknown(readErr)) {
				t.Errorf("the read: %v, want the run's error, its outcome known", readErr)
			}
			if n := len(s.sim.Writes()); n != len(tt.writes) {
				t.Errorf("%d writes reached GitHub, want %d", n, len(tt.writes))
			}
		})
		t.Run(tt.name+": WriteThenVerify", func(t *testing.T) {
			s, c := world(t)
			errs := make([]error, len(tt.writes))
			var wg sync.WaitGroup
			for i, w := range tt.writes {
				write, readBack := w(s, c)
				wg.Go(func() { errs[i] = c.WriteThenVerify(ctx, write, readBack) })
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("write %d: %v, want it read back and found done", i+1, err)
				}
			}
			if n := len(s.sim.Writes()); n != len(tt.writes) {
				t.Errorf("%d writes reached GitHub, want each once: %+v", n, s.sim.Writes())
			}
		})
	}
}
