package githubcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/gobuild"
)

// Client performs github.API's operations by asking the GitHub command: the module binary
// then links no GitHub client, and the decisions around each call (what to write, whether
// a write whose outcome is unknown happened) stay in the module. Calls made together (a
// flow's concurrent reads: doctor's, a release's gates) share one run of `github batch`,
// since each run is an exec of its own; a call alone is one run of `github call`. It is
// safe for concurrent use.
type Client struct {
	cmd    Command
	retry  github.WriteRetry
	window time.Duration // coalesceWindow but in tests

	mu    sync.Mutex
	stats github.Stats
	notes []string

	queueMu sync.Mutex
	queue   []*queued // calls waiting for the first of them to run them all
}

// queued is a call waiting for its run: its request, then its answer or the run's error.
type queued struct {
	req    github.Request
	answer github.Answer
	err    error
	done   chan struct{}
}

// coalesceWindow is how long the first of several calls waits for the others to join its
// run. Calls a flow starts together arrive within microseconds of each other, and every
// run costs an exec, far more than this.
const coalesceWindow = 15 * time.Millisecond

// The client performs every GitHub operation the flows use.
var _ github.API = (*Client)(nil)

// NewClient is a client of cmd. A write whose outcome is unknown is tried up to 4 times,
// as the command's own client retries a read, waiting 1s, 2s and 4s before reading back.
func NewClient(cmd Command) *Client {
	return &Client{cmd: cmd, retry: github.BackoffRetry(4, time.Second, nil), window: coalesceWindow}
}

// WithWriteRetry is c retrying writes whose outcome is unknown as retry says (tests wait
// no time).
func (c *Client) WithWriteRetry(retry github.WriteRetry) *Client {
	return &Client{cmd: c.cmd, retry: retry, window: c.window}
}

// WriteThenVerify is github.WriteThenVerify within the client's write retries.
func (c *Client) WriteThenVerify(ctx context.Context, write func(ctx context.Context) error, readBack func(ctx context.Context) (done bool, err error)) error {
	return github.WriteThenVerify(ctx, c.retry, write, readBack)
}

// Stats adds up what the command's runs sent for this client.
func (c *Client) Stats() github.Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// call asks the command for method with args and decodes its results into results, in
// order. An error of the call comes back as the error it was (github.CallError), so
// errors.Is and errors.As see what the command's client saw.
func (c *Client) call(ctx context.Context, method string, args []any, results ...any) error {
	req := github.Request{Method: method, Args: make([]json.RawMessage, len(args))}
	for i, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			return fmt.Errorf("github %s: encoding the arguments: %w", method, err)
		}
		req.Args[i] = b
	}
	q := &queued{req: req, done: make(chan struct{})}
	c.queueMu.Lock()
	c.queue = append(c.queue, q)
	first := len(c.queue) == 1
	c.queueMu.Unlock()
	if first {
		t := time.NewTimer(c.window)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		c.queueMu.Lock()
		calls := c.queue
		c.queue = nil
		c.queueMu.Unlock()
		c.runQueued(ctx, calls)
	}
	<-q.done
	if q.err != nil {
		return q.err
	}
	if q.answer.Error != nil {
		return q.answer.Error.Err()
	}
	if len(q.answer.Results) != len(results) {
		return fmt.Errorf("github call %s answered %d results, want %d", method, len(q.answer.Results), len(results))
	}
	for i, r := range q.answer.Results {
		if err := json.Unmarshal(r, results[i]); err != nil {
			return fmt.Errorf("reading result %d of github call %s: %w", i+1, method, err)
		}
	}
	return nil
}

// runQueued runs calls, one alone as `github call`, more as one `github batch`, and hands
// each its answer or the run's error.
func (c *Client) runQueued(ctx context.Context, calls []*queued) {
	defer func() {
		for _, q := range calls {
			close(q.done)
		}
	}()
	if len(calls) == 1 {
		q := calls[0]
		q.answer, q.err = c.runOne(ctx, q.req)
		q.err = unanswered(q.req.Method, q.err)
		return
	}
	answers, err := c.runBatch(ctx, calls)
	for i, q := range calls {
		if err != nil {
			q.err = unanswered(q.req.Method, err)
			continue
		}
		q.answer = answers[i]
	}
}

// unanswered is err, the error of a run that gave method no answer, for method's caller:
// the run may have sent a write before it failed (a container killed after its requests,
// output lost on the way back), so a write's outcome is unknown and WriteThenVerify reads
// it back; a read's error is the run's. A usage error ran no call at all.
func unanswered(method string, err error) error {
	var e *Error
	if err == nil || !github.IsWrite(method) || (errors.As(err, &e) && e.usage) {
		return err
	}
	return github.MayHaveHappened(err)
}

// runOne runs `github call` for req: its answer, or the error of a run that printed none.
func (c *Client) runOne(ctx context.Context, req github.Request) (github.Answer, error) {
	in, err := json.Marshal(req.Args)
	if err != nil {
		return github.Answer{}, fmt.Errorf("github %s: encoding the arguments: %w", req.Method, err)
	}
	stdout, runErr := c.cmd.runInput(ctx, string(in), "call", req.Method)
	var xe *gobuild.ExitError
	if runErr != nil {
		if !errors.As(runErr, &xe) {
			return github.Answer{}, fmt.Errorf("github %s: %w", req.Method, runErr)
		}
		stdout = xe.Stdout
	}
	var answer github.Answer
	if err := json.Unmarshal([]byte(stdout), &answer); err != nil {
		if xe != nil {
			return github.Answer{}, exitError(xe)
		}
		return github.Answer{}, fmt.Errorf("reading the answer of github call %s: %w", req.Method, err)
	}
	c.add(answer.Stats, answer.Notes)
	if answer.Error == nil && xe != nil {
		return github.Answer{}, exitError(xe)
	}
	return answer, nil
}

// runBatch runs `github batch` for calls and returns their answers, in order.
func (c *Client) runBatch(ctx context.Context, calls []*queued) ([]github.Answer, error) {
	reqs := make([]github.Request, len(calls))
	methods := make([]string, len(calls))
	for i, q := range calls {
		reqs[i], methods[i] = q.req, q.req.Method
	}
	in, err := json.Marshal(reqs)
	if err != nil {
		return nil, fmt.Errorf("github batch %v: encoding the requests: %w", methods, err)
	}
	stdout, runErr := c.cmd.runInput(ctx, string(in), "batch")
	if runErr != nil {
		var xe *gobuild.ExitError
		if errors.As(runErr, &xe) {
			return nil, exitError(xe)
		}
		return nil, fmt.Errorf("github batch %v: %w", methods, runErr)
	}
	var out github.BatchAnswer
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		return nil, fmt.Errorf("reading the answer of github batch %v: %w", methods, err)
	}
	c.add(out.Stats, out.Notes)
	if len(out.Answers) != len(calls) {
		return nil, fmt.Errorf("github batch %v answered %d calls, asked %d", methods, len(out.Answers), len(calls))
	}
	return out.Answers, nil
}

// Notes are the notes of the command's runs for this client (github.Answer's), each once,
// in the order first seen: every run reads the same cache, so they repeat.
func (c *Client) Notes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.notes)
}

func (c *Client) add(s github.Stats, notes []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Requests += s.Requests
	c.stats.NotModified += s.NotModified
	c.stats.Retries += s.Retries
	for _, n := range notes {
		if !slices.Contains(c.notes, n) {
			c.notes = append(c.notes, n)
		}
	}
}
