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
