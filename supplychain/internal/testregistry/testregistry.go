// Package testregistry runs go-containerregistry's in-memory OCI registry on
// 127.0.0.1 for tests, optionally behind basic authentication, and records
// the requests it receives so tests can assert what was (not) written.
package testregistry

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Registry is a running test registry.
type Registry struct {
	Host string

	mu     sync.Mutex
	writes int
	seen   bytes.Buffer // every request line, header and body, to search for leaks
	failOn func(*http.Request) bool
}

// Options configure a Registry.
type Options struct {
	// ReferrersAPI enables the OCI 1.1 referrers endpoint; without it clients
	// use the sha256-<hex> fallback tag.
	ReferrersAPI bool
	// Username and Password, when set, are required as basic authentication.
	Username, Password string
}

// New starts a registry that stops when the test ends.
func New(t testing.TB, o Options) *Registry {
	t.Helper()
	r := &Registry{}
	h := registry.New(registry.WithReferrersSupport(o.ReferrersAPI), registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		r.mu.Lock()
		r.seen.WriteString(req.Method + " " + req.URL.String() + "\n")
		for k, vs := range req.Header {
			r.seen.WriteString(k + ": " + strings.Join(vs, ",") + "\n")
		}
		r.seen.Write(body)
		r.seen.WriteString("\n")
		fail := r.failOn != nil && r.failOn(req)
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			r.writes++
		}
		r.mu.Unlock()
		if o.Username != "" {
			u, p, ok := req.BasicAuth()
			if !ok || u != o.Username || p != o.Password {
				w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
				http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
				return
			}
		}
		if fail {
			http.Error(w, `{"errors":[{"code":"UNKNOWN","message":"injected fault"}]}`, http.StatusInternalServerError)
			return
		}
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	r.Host = strings.TrimPrefix(srv.URL, "http://")
	return r
}

// Writes returns how many requests other than GET and HEAD were received.
func (r *Registry) Writes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writes
}

// Seen returns everything the registry received so far.
func (r *Registry) Seen() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen.String()
}

// FailWhen makes requests matching f fail with a 500 (nil clears it).
func (r *Registry) FailWhen(f func(*http.Request) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failOn = f
}

// PushRandom pushes a random image to repo by digest (no tag) and returns
// its digest reference.
func (r *Registry) PushRandom(t testing.TB, repo string, opts ...remote.Option) (name.Digest, v1.Image) {
	t.Helper()
	img, err := random.Image(512, 2)
	if err != nil {
		t.Fatal(err)
	}
	h, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	d, err := name.NewDigest(r.Host + "/" + repo + "@" + h.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(d, img, opts...); err != nil {
		t.Fatal(err)
	}
	return d, img
}
