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

// Client performs github.API's operations by asking the GitHub command, one run of
// `github call` per call: the module binary then links no GitHub client, and the decisions
// around each call (what to write, whether a write whose outcome is unknown happened)
// stay in the module. It is safe for concurrent use.
type Client struct {
	cmd   Command
	retry github.WriteRetry

	mu    sync.Mutex
	stats github.Stats
	notes []string
}

// The client performs every GitHub operation the flows use.
var _ github.API = (*Client)(nil)

// NewClient is a client of cmd. A write whose outcome is unknown is tried up to 4 times,
// as the command's own client retries a read, waiting 1s, 2s and 4s before reading back.
func NewClient(cmd Command) *Client {
	return &Client{cmd: cmd, retry: github.BackoffRetry(4, time.Second, nil)}
}

// WithWriteRetry is c retrying writes whose outcome is unknown as retry says (tests wait
// no time).
func (c *Client) WithWriteRetry(retry github.WriteRetry) *Client {
	return &Client{cmd: c.cmd, retry: retry}
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
	in, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("github %s: encoding the arguments: %w", method, err)
	}
	stdout, runErr := c.cmd.runInput(ctx, string(in), "call", method)
	var xe *gobuild.ExitError
	if runErr != nil {
		if !errors.As(runErr, &xe) {
			return fmt.Errorf("github %s: %w", method, runErr)
		}
		stdout = xe.Stdout
	}
	var answer github.Answer
	if err := json.Unmarshal([]byte(stdout), &answer); err != nil {
		if xe != nil {
			return &Error{Message: xe.Message}
		}
		return fmt.Errorf("reading the answer of github call %s: %w", method, err)
	}
	c.add(answer.Stats, answer.Notes)
	if answer.Error != nil {
		return answer.Error.Err()
	}
	if xe != nil {
		return &Error{Message: xe.Message}
	}
	if len(answer.Results) != len(results) {
		return fmt.Errorf("github call %s answered %d results, want %d", method, len(answer.Results), len(results))
	}
	for i, r := range answer.Results {
		if err := json.Unmarshal(r, results[i]); err != nil {
			return fmt.Errorf("reading result %d of github call %s: %w", i+1, method, err)
		}
	}
	return nil
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
