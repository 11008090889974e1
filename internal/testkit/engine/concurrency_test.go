package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"dagger.io/dagger"
)

// syncAll evaluates containers concurrently, as independent jobs of a pipeline do.
func syncAll(ctx context.Context, ctrs ...*dagger.Container) error {
	errs := make([]error, len(ctrs))
	var wg sync.WaitGroup
	for i, c := range ctrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Sync(ctx)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func TestExecLatencyMeasuresTheCriticalPath(t *testing.T) {
	const d = 400 * time.Millisecond
	ctx := context.Background()
	e := New(t, WithExecLatency(d))
	c := e.Client(ctx)
	base := c.Container().From("alpine")
	lint := base.WithExec([]string{"lint"})
	unit := base.WithExec([]string{"unit"})

	cases := []struct {
		name     string
		run      func() error
		min, max time.Duration // max stays below the next multiple of d
	}{
		{"independent execs overlap", func() error { return syncAll(ctx, lint, unit) }, d, 2*d - d/5},
		{"cached exec is free, the new one costs once", func() error {
			_, err := lint.WithExec([]string{"report"}).Sync(ctx)
			return err
		}, d, 2*d - d/5},
		{"an argument's exec runs beside the chain's own", func() error {
			art := base.WithExec([]string{"build"}).Directory("/out")
			_, err := base.WithExec([]string{"prepare"}).WithDirectory("/in", art).WithExec([]string{"test"}).Sync(ctx)
			return err
		}, 2 * d, 3*d - d/5},
		{"everything cached", func() error { return syncAll(ctx, lint, unit) }, 0, d - d/5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			if err := tc.run(); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took < tc.min || took > tc.max {
				t.Errorf("took %v, want between %v and %v", took, tc.min, tc.max)
			}
		})
	}
	for _, ex := range e.Graph().Execs() {
		if ex.Runs != 1 {
			t.Errorf("%v ran %d times, want once", ex.Args, ex.Runs)
		}
	}
	if ex := e.Graph().ExecsWith("lint"); len(ex) != 1 || ex[0].Requests != 3 {
		t.Errorf("lint exec = %+v, want one record needed three times", ex)
	}
}

func TestConcurrentQueries(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	e.OnExec(ExecRule{ArgsContain: "cat", Match: func(x Exec) bool { return x.Env["N"] != "" }, Stdout: "ok"})
	c := e.Client(ctx)
	shared := c.Container().From("python:3.12").WithExec([]string{"pip", "install", "-e", "."})
	const n = 16
	outs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := c.Directory()
			var files []*dagger.File
			for j := range 4 {
				src = src.WithNewFile(fmt.Sprintf("f%d.txt", j), fmt.Sprint(i))
				files = append(files, c.File(fmt.Sprintf("g%d.txt", j), fmt.Sprint(i, j)))
			}
			ctr := shared.
				WithEnvVariable("N", fmt.Sprint(i)).
				WithDirectory("/src", src).
				WithFiles("/extra", files).
				WithExec([]string{"cat", "/src/f0.txt"})
			outs[i], errs[i] = ctr.Stdout(ctx)
			if errs[i] == nil {
				var got string
				got, errs[i] = ctr.File("/extra/g3.txt").Contents(ctx)
				if want := fmt.Sprint(i, 3); errs[i] == nil && got != want {
					errs[i] = fmt.Errorf("file contents %q, want %q", got, want)
				}
			}
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || outs[i] != "ok" {
			t.Errorf("query %d: %q, %v", i, outs[i], errs[i])
		}
	}
	g := e.Graph()
	if got := len(g.ExecsWith("cat")); got != n {
		t.Errorf("consumer execs = %d, want %d", got, n)
	}
	pip := g.ExecsWith("pip install")
	if len(pip) != 1 || pip[0].Runs != 1 || pip[0].Requests < n {
		t.Errorf("shared exec = %+v, want one run needed by all %d", pip, n)
	}
}

// captureTB stands in for the test so the engine's cleanup verdict can be observed.
type captureTB struct {
	testing.TB
	mu       sync.Mutex
	errors   []string
	cleanups []func()
}

func (c *captureTB) Helper() {}

func (c *captureTB) Errorf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errors = append(c.errors, fmt.Sprintf(format, args...))
}

func (c *captureTB) Cleanup(f func()) { c.cleanups = append(c.cleanups, f) }

func (c *captureTB) runCleanups() {
	for i := len(c.cleanups) - 1; i >= 0; i-- {
		c.cleanups[i]()
	}
}

func TestInvalidQueryFailsTheTestAtCleanup(t *testing.T) {
	cases := []struct {
		name       string
		opts       []Option
		wantErrors int
	}{
		{"by default", nil, 1},
		{"allowed", []Option{AllowInvalidQueries()}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tb := &captureTB{TB: t}
			e := New(tb, tc.opts...)
			_, token := e.SessionEnv()
			rawQuery(t, e, token, `query Query {container{nope}}`)
			tb.runCleanups()
			if len(tb.errors) != tc.wantErrors {
				t.Fatalf("cleanup reported %d errors, want %d: %v", len(tb.errors), tc.wantErrors, tb.errors)
			}
			if tc.wantErrors > 0 && !strings.Contains(tb.errors[0], "nope") {
				t.Errorf("cleanup error %q should quote the refusal", tb.errors[0])
			}
		})
	}
}
