// Package githubclient performs the GitHub operations Shipyard needs, on go-github, with
// the types of package github, so that the rules never depend on go-github. Only the GitHub
// command (cmd/github) and tests link it.
//
// go-github builds and decodes every request; the client's transport, under it, makes the
// API economical and robust: it retries idempotent requests (GET, HEAD) on 5xx and rate
// limits within a bounded budget, honouring Retry-After and X-RateLimit-Reset; it never
// retries a write (see WriteThenVerify for writes whose outcome is unknown); it
// revalidates cached responses with ETags, so an unchanged re-run costs no rate limit; it
// bounds every request in time; and it counts requests.
//
// The token lives only in memory, in the transport: it is never part of a URL, an error or
// a log line, and the cache knows it only by keys derived from it (see CacheSeal). It goes
// only to the API's own host, never across a redirect elsewhere, and never over plain
// http beyond loopback (and the engine's test network, see plainHTTPAllowed).
package githubclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v84/github"

	"dagger/shipyard/internal/github"
)

// userAgent names the client, as GitHub asks API clients to do.
const userAgent = "shipyard"

// Client performs the GitHub operations. It is safe for concurrent use.
type Client struct {
	gh *gh.Client // on t, so every request is authenticated, retried, cached and counted
	t  *transport
}

// RetryPolicy bounds the retries of one idempotent request.
type RetryPolicy struct {
	// MaxAttempts counts the first try (default 4).
	MaxAttempts int
	// MaxTotalWait bounds the sum of waits for one request (default 2 minutes).
	MaxTotalWait time.Duration
	// MaxWait is the longest single wait accepted; a Retry-After or rate-limit reset
	// further away ends the retries at once (default 1 minute).
	MaxWait time.Duration
	// BaseBackoff is the first wait after a 5xx or network error, doubled on each retry
	// (default 1s).
	BaseBackoff time.Duration
	// AttemptTimeout bounds one attempt of every request, writes included, from sending
	// it to reading its body (default 30s).
	AttemptTimeout time.Duration
}

// DefaultRetryPolicy returns the policy used unless WithRetryPolicy says otherwise.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		MaxAttempts:    4,
		MaxTotalWait:   2 * time.Minute,
		MaxWait:        time.Minute,
		BaseBackoff:    time.Second,
		AttemptTimeout: 30 * time.Second,
	}
}

// Option configures a Client.
type Option func(*transport)

// WithRetryPolicy replaces the retry budget; zero fields keep their defaults.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(t *transport) {
		d := DefaultRetryPolicy()
		if p.MaxAttempts > 0 {
			d.MaxAttempts = p.MaxAttempts
		}
		if p.MaxTotalWait > 0 {
			d.MaxTotalWait = p.MaxTotalWait
		}
		if p.MaxWait > 0 {
			d.MaxWait = p.MaxWait
		}
		if p.BaseBackoff > 0 {
			d.BaseBackoff = p.BaseBackoff
		}
		if p.AttemptTimeout > 0 {
			d.AttemptTimeout = p.AttemptTimeout
		}
		t.policy = d
	}
}

// WithSleep replaces how the client waits between attempts, so tests need not sleep.
// The function must return early with ctx.Err() when ctx ends.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(t *transport) { t.sleep = sleep }
}

// WithClock replaces the clock used to turn X-RateLimit-Reset into a wait.
func WithClock(now func() time.Time) Option {
	return func(t *transport) { t.now = now }
}

// WithTransport replaces the underlying HTTP transport (default: a clone of
// http.DefaultTransport).
func WithTransport(rt http.RoundTripper) Option {
	return func(t *transport) { t.base = rt }
}

// WithCache shares an ETag cache between clients, e.g. across the steps of one run.
// Entries are keyed by URL and a key derived from the token, so clients with different tokens
// never see each other's responses.
func WithCache(c *Cache) Option {
	return func(t *transport) { t.cache = c }
}

// NewClient returns a client for the API at baseURL (DefaultBaseURL when empty)
// authenticating with token (anonymous when empty).
//
// The base URL must be https, except for loopback and the engine's test network (see
// plainHTTPAllowed); the same rule holds for every redirect the client follows.
func NewClient(baseURL, token string, opts ...Option) (*Client, error) {
	explicit := baseURL != ""
	if !explicit {
		baseURL = github.DefaultBaseURL
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("github: base URL: %w", err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("github: base URL %q: want http(s)://host[/path] without credentials", u.Redacted())
	}
	var explicitBase *url.URL
	if explicit {
		explicitBase = &url.URL{Scheme: u.Scheme, Host: u.Host}
	}
	if u.Scheme == "http" && !plainHTTPAllowed(u, explicitBase) {
		return nil, fmt.Errorf("github: base URL %q: plain http would expose the token; use https (plain http is allowed only to loopback and, for tests, the Dagger engine's network 10.87.0.0/16)", u.Redacted())
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	// Request paths are appended to the root, so a query or fragment of it would end up
	// inside them; resolving a path against a URL drops both anyway.
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	// Whitespace would let the token split or inject headers; say so without echoing it.
	if strings.ContainsAny(token, " \t\r\n") {
		return nil, errors.New("github: token contains whitespace")
	}
	var base http.RoundTripper = http.DefaultTransport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		base = dt.Clone() // our own connection pool, unaffected by other users
	}
	t := &transport{
		base:         base,
		api:          &url.URL{Scheme: u.Scheme, Host: u.Host},
		explicitBase: explicitBase,
		policy:       DefaultRetryPolicy(),
		sleep:        github.Sleep,
		now:          time.Now,
	}
	if token != "" {
		t.auth = secret("Bearer " + token)
		t.tokenID = cacheScope(token)
	}
	for _, o := range opts {
		o(t)
	}
	if t.cache == nil {
		t.cache = NewCache(0)
	}
	c := gh.NewClient(&http.Client{Transport: t})
	c.BaseURL = u
	c.UserAgent = userAgent
	// The transport waits for rate-limit resets within its retry budget; go-github's own
	// gate would refuse requests until a reset it saw, even with budget left.
	c.DisableRateLimitCheck = true
	return &Client{gh: c, t: t}, nil
}

// Stats returns the counts so far.
func (c *Client) Stats() github.Stats {
	return github.Stats{
		Requests:    c.t.requests.Load(),
		NotModified: c.t.notModified.Load(),
		Retries:     c.t.retries.Load(),
	}
}

// Requests is the number of HTTP requests sent so far.
func (c *Client) Requests() int64 { return c.t.requests.Load() }

// secret keeps a credential out of formatted output.
type secret string

func (secret) String() string { return "[redacted]" }

func (secret) GoString() string { return "[redacted]" }

// The client performs every GitHub operation the flows use.
var _ github.API = (*Client)(nil)
