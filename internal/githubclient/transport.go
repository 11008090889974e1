package githubclient

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/plainhttp"
)

// transport authenticates, retries, caches and counts the client's HTTP requests.
type transport struct {
	base    http.RoundTripper
	auth    secret // Authorization header value; empty for anonymous access
	tokenID string // cacheScope of the token, for cache keys in memory
	// api is the API's scheme and host: the token goes there and nowhere else, so a
	// redirect elsewhere (a release asset's storage, a moved host) is followed without it.
	api *url.URL
	// explicitBase is the base URL the caller gave, nil for the default; see
	// plainHTTPAllowed.
	explicitBase *url.URL
	cache        *Cache
	policy       RetryPolicy
	sleep        func(context.Context, time.Duration) error
	now          func() time.Time

	requests    atomic.Int64
	notModified atomic.Int64
	retries     atomic.Int64
}

// RetryError reports an idempotent request that still failed when its retry budget was
// spent. It names the endpoint; it never holds credentials.
type RetryError struct {
	Endpoint string // method and path, e.g. "GET /repos/o/r/releases"
	Attempts int
	Waited   time.Duration
	Reason   string // the last failure, e.g. "502 Bad Gateway" or "secondary rate limit"
	Err      error  // the last network error, if that was the failure
}

func (e *RetryError) Error() string {
	return fmt.Sprintf("%s: gave up after %d attempt(s) and %s of waiting: %s",
		e.Endpoint, e.Attempts, e.Waited, e.Reason)
}

func (e *RetryError) Unwrap() error { return e.Err }

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" && !(req.URL.Scheme == "http" && plainHTTPAllowed(req.URL, t.explicitBase)) {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper closes the body, even on error
		}
		return nil, fmt.Errorf("github: %s %s://%s%s: %w: plain http is allowed only to loopback (or the engine's test network, see plainHTTPAllowed)",
			req.Method, req.URL.Scheme, req.URL.Host, req.URL.EscapedPath(), github.ErrRefused)
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		// A write is sent once: repeating one whose outcome is unknown could apply it
		// twice, so that decision belongs to WriteThenVerify, which reads back first. It
		// gets the same time bound as a read: a hung write is an unknown outcome, which
		// WriteThenVerify resolves, rather than a run that never ends.
		t.requests.Add(1)
		actx, cancel := context.WithTimeout(req.Context(), t.policy.AttemptTimeout)
		resp, err := t.base.RoundTrip(t.authorize(actx, req))
		if err != nil {
			cancel()
			return nil, err
		}
		resp.Body = readCloser{Reader: resp.Body, Closer: cancelOnClose(resp.Body, cancel)}
		return resp, nil
	}
	return t.idempotent(req)
}

// authorize returns a copy of req on ctx carrying the token when it goes to the API's
// own scheme and host, and without any Authorization header otherwise (RoundTrippers
// must not modify their request). net/http copies headers onto a redirect; this decides
// per hop, whatever the hop.
func (t *transport) authorize(ctx context.Context, req *http.Request) *http.Request {
	r := req.Clone(ctx)
	if t.auth != "" && sameOrigin(r.URL, t.api) {
		r.Header.Set("Authorization", string(t.auth))
	} else {
		r.Header.Del("Authorization")
	}
	return r
}

// sameOrigin reports whether u is on the API's scheme and host (port included).
func sameOrigin(u, api *url.URL) bool {
	return api != nil && strings.EqualFold(u.Scheme, api.Scheme) && strings.EqualFold(u.Host, api.Host)
}

// plainHTTPAllowed reports whether a request may go to u without TLS, which would expose
// the token and let anyone on the path change answers: only where plainhttp.Allowed says
// the traffic stays on the machine, and the engine's gateway (where Shipyard's real-engine
// tests serve the GitHub simulator to the module) only as the host of a base URL the caller
// gave explicitly, never through a default or a redirect.
func plainHTTPAllowed(u, explicitBase *url.URL) bool {
	host := u.Hostname()
	if !plainhttp.Allowed(host) {
		return false
	}
	if host != plainhttp.EngineGateway {
		return true
	}
	return explicitBase != nil && strings.EqualFold(u.Host, explicitBase.Host)
}

// cancelOnClose closes body, then ends the request's own context.
func cancelOnClose(body io.Closer, cancel context.CancelFunc) io.Closer {
	return closerFunc(func() error {
		err := body.Close()
		cancel()
		return err
	})
}

func (t *transport) idempotent(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	endpoint := req.Method + " " + req.URL.EscapedPath()
	// A caller's own If-None-Match means it manages validation itself.
	useCache := req.Method == http.MethodGet && req.Header.Get("If-None-Match") == ""
	key := t.tokenID + " " + req.Header.Get("Accept") + " " + req.URL.String()
	var cached *cacheEntry
	if useCache {
		cached = t.cache.get(key)
	}
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, t.policy.AttemptTimeout)
		r := t.authorize(actx, req)
		if cached != nil {
			r.Header.Set("If-None-Match", cached.etag)
		}
		t.requests.Add(1)
		if attempt > 1 {
			t.retries.Add(1)
		}
		resp, err := t.base.RoundTrip(r)

		var wait time.Duration
		var reason string
		var netErr error
		switch {
		case err != nil:
			cancel()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			wait, reason, netErr = t.backoff(attempt), "network error: "+err.Error(), err
		case resp.StatusCode == http.StatusNotModified && cached != nil:
			drain(resp)
			cancel()
			t.notModified.Add(1)
			return cached.response(req, resp), nil
		default:
			var retry bool
			wait, reason, retry = t.classify(resp, attempt)
			if !retry {
				return t.keep(req, resp, key, useCache, cancel)
			}
			drain(resp)
			cancel()
		}

		if attempt >= t.policy.MaxAttempts || wait > t.policy.MaxWait || waited+wait > t.policy.MaxTotalWait {
			if attempt < t.policy.MaxAttempts {
				reason += fmt.Sprintf(" (retrying would mean waiting %s more, beyond the budget)", wait.Round(time.Second))
			}
			return nil, &RetryError{Endpoint: endpoint, Attempts: attempt, Waited: waited, Reason: reason, Err: netErr}
		}
		if err := t.sleep(ctx, wait); err != nil {
			return nil, err
		}
		waited += wait
	}
}

// classify decides whether a response is worth another attempt and after how long,
// following GitHub's guidance: Retry-After first; then, with X-RateLimit-Remaining 0,
// the reset time; a secondary rate limit without either waits a minute.
func (t *transport) classify(resp *http.Response, attempt int) (wait time.Duration, reason string, retry bool) {
	code := resp.StatusCode
	switch {
	case code >= 500 && code != http.StatusNotImplemented:
		wait = t.backoff(attempt)
		if ra, ok := t.retryAfter(resp); ok {
			wait = ra
		}
		return wait, resp.Status, true
	case code == http.StatusForbidden || code == http.StatusTooManyRequests:
		secondary := code == http.StatusTooManyRequests || mentionsSecondaryLimit(resp)
		if ra, ok := t.retryAfter(resp); ok {
			return ra, limitReason(secondary, resp), true
		}
		if resp.Header.Get("X-RateLimit-Remaining") == "0" {
			if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
				return max(time.Unix(reset, 0).Sub(t.now()), 0), "primary rate limit exhausted until " +
					time.Unix(reset, 0).UTC().Format(time.RFC3339), true
			}
		}
		if secondary {
			return time.Minute, limitReason(true, resp), true
		}
	}
	return 0, "", false
}

func limitReason(secondary bool, resp *http.Response) string {
	if secondary {
		return "secondary rate limit (" + resp.Status + ")"
	}
	return "rate limited (" + resp.Status + ")"
}

// mentionsSecondaryLimit peeks at an error body for GitHub's secondary rate limit
// message, leaving the body readable for the caller.
func mentionsSecondaryLimit(resp *http.Response) bool {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body = readCloser{Reader: io.MultiReader(bytes.NewReader(data), resp.Body), Closer: resp.Body}
	s := strings.ToLower(string(data))
	return strings.Contains(s, "secondary rate limit") || strings.Contains(s, "abuse")
}

// retryAfter parses Retry-After as seconds or an HTTP date.
func (t *transport) retryAfter(resp *http.Response) (time.Duration, bool) {
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(t.now()), 0), true
	}
	return 0, false
}

// backoff is the exponential wait before attempt+1 after a 5xx or network error.
func (t *transport) backoff(attempt int) time.Duration {
	return t.policy.BaseBackoff << min(attempt-1, 10)
}

// keep hands a final response to the caller, remembering a 200's ETag and body. The
// attempt's context is cancelled once the body is read or closed.
func (t *transport) keep(req *http.Request, resp *http.Response, key string, useCache bool, cancel context.CancelFunc) (*http.Response, error) {
	orig := resp.Body
	closeAll := cancelOnClose(orig, cancel)
	etag := resp.Header.Get("ETag")
	if !useCache || resp.StatusCode != http.StatusOK || etag == "" {
		resp.Body = readCloser{Reader: orig, Closer: closeAll}
		return resp, nil
	}
	body, err := io.ReadAll(io.LimitReader(orig, maxCachedBody+1))
	if err != nil {
		closeAll.Close()
		return nil, fmt.Errorf("github: %s %s: reading response: %w", req.Method, req.URL.EscapedPath(), err)
	}
	if len(body) > maxCachedBody {
		// Too large to keep in memory: pass it through uncached.
		resp.Body = readCloser{Reader: io.MultiReader(bytes.NewReader(body), orig), Closer: closeAll}
		return resp, nil
	}
	closeAll.Close()
	t.cache.put(key, &cacheEntry{etag: etag, body: body, header: resp.Header.Clone()})
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
}

type readCloser struct {
	io.Reader
	io.Closer
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }
