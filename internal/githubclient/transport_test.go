package githubclient

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"dagger/shipyard/internal/github"
)

func TestPlainHTTPAllowed(t *testing.T) {
	tests := []struct {
		name     string
		target   string // the request's URL
		explicit string // the base URL the caller gave; "" for the default
		want     bool
	}{
		{"IPv4 loopback", "http://127.0.0.1:8080/x", "", true},
		{"anywhere in 127.0.0.0/8", "http://127.3.4.5/x", "", true},
		{"IPv6 loopback", "http://[::1]:8080/x", "", true},
		{"IPv4-mapped loopback", "http://[::ffff:127.0.0.1]/x", "", true},
		{"localhost", "http://localhost:9/x", "", true},
		{"localhost in capitals", "http://LOCALHOST/x", "", true},
		{"engine network, the explicit base's host", "http://10.87.0.1:8080/x", "http://10.87.0.1:8080/", true},
		{"another container of the engine network", "http://10.87.255.254/x", "http://10.87.255.254/", false},
		{"engine network without an explicit base", "http://10.87.0.1:8080/x", "", false},
		{"engine network, another host than the base's", "http://10.87.0.2:8080/x", "http://10.87.0.1:8080/", false},
		{"engine network, another port than the base's", "http://10.87.0.1:9090/x", "http://10.87.0.1:8080/", false},
		{"next to the engine network", "http://10.88.0.1/x", "http://10.88.0.1/", false},
		{"other private network", "http://192.168.1.10/x", "http://192.168.1.10/", false},
		{"a name, even if it resolves there", "http://sim.internal/x", "http://sim.internal/", false},
		{"a name that starts like an engine address", "http://10.87.0.1.example.org/x", "http://10.87.0.1.example.org/", false},
		{"a name that starts like localhost", "http://localhost.example.org/x", "", false},
		{"public API", "http://api.github.com/x", "http://api.github.com/", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := mustURL(t, tt.target)
			var base *url.URL
			if tt.explicit != "" {
				b := mustURL(t, tt.explicit)
				base = &url.URL{Scheme: b.Scheme, Host: b.Host}
			}
			if got := plainHTTPAllowed(u, base); got != tt.want {
				t.Errorf("plainHTTPAllowed(%s, %v) = %v, want %v", tt.target, base, got, tt.want)
			}
		})
	}
}

func TestNewClientRefusesPlainHTTPBeyondLoopback(t *testing.T) {
	tests := []struct {
		base string
		ok   bool
	}{
		{"https://api.github.com/", true},
		{"https://ghe.example.org/api/v3", true},
		{"http://127.0.0.1:8080/", true},
		{"http://[::1]:8080/api/v3", true},
		{"http://localhost:8080/", true},
		{"http://10.87.0.1:8080/", true},
		{"http://api.github.com/", false},
		{"http://ghe.example.org/api/v3", false},
		{"http://10.86.0.1:8080/", false},
		{"http://172.17.0.1:8080/", false},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			_, err := NewClient(tt.base, token)
			if (err == nil) != tt.ok {
				t.Errorf("NewClient(%q) err = %v, want ok %v", tt.base, err, tt.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "plain http") {
				t.Errorf("err = %v, want it to say why", err)
			}
		})
	}
}

func TestRedirectsToPlainHTTPAreRefused(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		location string
		op       func(*Client) error
	}{
		{"read to a public host", "http://example.invalid/landing", func(c *Client) error {
			_, err := c.Releases(ctx, "octo", "demo")
			return err
		}},
		{"read to the engine network, not the base's host", "http://10.87.0.9:8080/landing", func(c *Client) error {
			_, err := c.Releases(ctx, "octo", "demo")
			return err
		}},
		{"write to a public host", "http://example.invalid/landing", func(c *Client) error {
			_, err := c.CreateRelease(ctx, "octo", "demo", github.NewRelease{TagName: "v1"})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, tt.location, http.StatusTemporaryRedirect)
			}))
			t.Cleanup(srv.Close)
			c, err := NewClient(srv.URL+"/api/v3", token)
			if err != nil {
				t.Fatal(err)
			}
			err = tt.op(c)
			if !errors.Is(err, github.ErrRefused) {
				t.Fatalf("err = %v, want a refusal", err)
			}
			if github.OutcomeUnknown(err) {
				t.Errorf("a refused request counts as an unknown outcome: %v", err)
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("token in the error: %v", err)
			}
		})
	}
}

// authRecorder answers every request and remembers the Authorization header per path.
type authRecorder struct {
	mu   sync.Mutex
	seen map[string][]string
}

func (a *authRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	if a.seen == nil {
		a.seen = map[string][]string{}
	}
	a.seen[r.URL.Path] = append(a.seen[r.URL.Path], r.Header.Get("Authorization"))
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodGet {
		_, _ = io.WriteString(w, `[]`)
		return
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, `{"id":1,"tag_name":"v1"}`)
}

func (a *authRecorder) headers(path string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen[path]...)
}

func TestAuthorizationStaysOnTheAPIHost(t *testing.T) {
	ctx := context.Background()
	read := func(c *Client) error {
		_, err := c.Releases(ctx, "octo", "demo")
		return err
	}
	write := func(c *Client) error {
		_, err := c.CreateRelease(ctx, "octo", "demo", github.NewRelease{TagName: "v1"})
		return err
	}
	tests := []struct {
		name      string
		sameHost  bool // the redirect stays on the API's host (and port)
		op        func(*Client) error
		wantToken bool
	}{
		{"read redirected within the API host keeps the token", true, read, true},
		{"read redirected to another host goes without it", false, read, false},
		{"write redirected within the API host keeps the token", true, write, true},
		{"write redirected to another host goes without it", false, write, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			elsewhere := &authRecorder{}
			other := httptest.NewServer(elsewhere)
			t.Cleanup(other.Close)
			here := &authRecorder{}
			var api *httptest.Server
			api = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/landing" {
					here.ServeHTTP(w, r)
					return
				}
				target := other.URL
				if tt.sameHost {
					target = api.URL
				}
				// 307 keeps the method and body, so writes follow it too.
				http.Redirect(w, r, target+"/landing", http.StatusTemporaryRedirect)
			}))
			t.Cleanup(api.Close)
			c, err := NewClient(api.URL+"/api/v3", token)
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.op(c); err != nil {
				t.Fatal(err)
			}
			landed := elsewhere.headers("/landing")
			if tt.sameHost {
				landed = here.headers("/landing")
			}
			if len(landed) != 1 {
				t.Fatalf("%d requests landed, want 1", len(landed))
			}
			if got := landed[0] == "Bearer "+token; got != tt.wantToken {
				t.Errorf("token sent after the redirect: %v, want %v (header %q)", got, tt.wantToken, strings.ReplaceAll(landed[0], token, "<token>"))
			}
			if !tt.wantToken && landed[0] != "" {
				t.Errorf("an Authorization header left the API host")
			}
		})
	}
}

func TestEveryRequestHasATimeout(t *testing.T) {
	ctx := context.Background()
	// Long enough that a loaded machine still delivers the request before it runs out: the
	// case is a server that stalls after receiving it.
	const timeout = 500 * time.Millisecond
	tests := []struct {
		name string
		// stallBody sends the status and headers, then stalls; otherwise nothing is sent.
		stallBody  bool
		op         func(*Client) error
		write      bool
		wantUnsure bool
	}{
		{"read", false, func(c *Client) error { _, err := c.Releases(ctx, "octo", "demo"); return err }, false, false},
		{"read with a stalled body", true, func(c *Client) error { _, err := c.Releases(ctx, "octo", "demo"); return err }, false, false},
		{"create (POST)", false, func(c *Client) error {
			_, err := c.CreateRelease(ctx, "octo", "demo", github.NewRelease{TagName: "v1"})
			return err
		}, true, true},
		{"move a branch (PATCH)", false, func(c *Client) error {
			return c.UpdateBranch(ctx, "octo", "demo", "main", "abc", false)
		}, true, true},
		{"delete (DELETE)", false, func(c *Client) error { return c.DeleteRelease(ctx, "octo", "demo", 7) }, true, true},
		{"write with a stalled body", true, func(c *Client) error {
			_, err := c.CreateRelease(ctx, "octo", "demo", github.NewRelease{TagName: "v1"})
			return err
		}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			var mu sync.Mutex
			requests := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				requests++
				mu.Unlock()
				if tt.stallBody {
					w.Header().Set("Content-Type", "application/json")
					w.Header().Set("ETag", `"e"`)
					w.WriteHeader(http.StatusOK)
					_, _ = io.WriteString(w, "[")
					w.(http.Flusher).Flush()
				}
				select {
				case <-r.Context().Done():
				case <-release:
				}
			}))
			t.Cleanup(srv.Close)
			t.Cleanup(func() { close(release) })
			c, err := NewClient(srv.URL, token, WithRetryPolicy(RetryPolicy{MaxAttempts: 1, AttemptTimeout: timeout}))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err = tt.op(c)
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("took %s with a %s timeout", elapsed, timeout)
			}
			if err == nil {
				t.Fatal("a stalled server gave no error")
			}
			if tt.wantUnsure && !github.OutcomeUnknown(err) {
				t.Errorf("a timed-out write is not an unknown outcome: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if tt.write && requests != 1 {
				t.Errorf("write sent %d times, want once", requests)
			}
		})
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
