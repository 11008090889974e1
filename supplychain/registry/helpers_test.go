package registry

import (
	"encoding/base64"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// testAuth is the login of the test registries; its password is distinctive
// so a leak into an error message is found by a plain substring search.
var testAuth = Auth{Username: "shipyard-bot", Password: "s3cr3t-t0ken-9f8e7d"}

// testRegistry is go-containerregistry's registry behind Basic auth, with a
// request log and injectable failures.
type testRegistry struct {
	srv  *httptest.Server
	host string
	auth Auth

	mu          sync.Mutex
	requests    []string // "METHOD path"
	withAuth    int      // requests that carried the right credentials
	failLeft    int
	failMatch   func(*http.Request) bool
	failed      int
	echoHeaders bool // echo the Authorization header in injected errors
	failStatus  int  // status of injected failures; 500 when zero
}

func newTestRegistry(t *testing.T) *testRegistry {
	t.Helper()
	reg := &testRegistry{auth: testAuth}
	inner := ggcrregistry.New(ggcrregistry.Logger(log.New(io.Discard, "", 0)))
	reg.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reg.mu.Lock()
		reg.requests = append(reg.requests, r.Method+" "+r.URL.Path)
		user, pass, ok := r.BasicAuth()
		authorized := ok && user == reg.auth.Username && pass == reg.auth.Password
		if authorized {
			reg.withAuth++
		}
		fail := authorized && reg.failLeft > 0 && reg.failMatch != nil && reg.failMatch(r)
		if fail {
			reg.failLeft--
			reg.failed++
		}
		echo, status := reg.echoHeaders, reg.failStatus
		reg.mu.Unlock()
		if status == 0 {
			status = http.StatusInternalServerError
		}

		if !authorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="shipyard-test"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
			return
		}
		if fail {
			msg := "injected failure"
			if echo {
				msg += " for " + r.Header.Get("Authorization")
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"errors":[{"code":"UNKNOWN","message":%q}]}`, msg)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(reg.srv.Close)
	reg.host = strings.TrimPrefix(reg.srv.URL, "http://")
	return reg
}

func (reg *testRegistry) repo(name string) string { return reg.host + "/org/" + name }

// opts makes go-containerregistry's retries fast (the retries themselves stay) and lets
// plain HTTP go to the test registry's loopback address.
func (reg *testRegistry) opts() []Option {
	return []Option{withBackoff(remote.Backoff{Duration: time.Millisecond, Factor: 2, Steps: 3}), WithPlainHTTP("127.0.0.1")}
}

// failFirst makes the next n requests that match fail (with a 500 unless
// failStatus says otherwise).
func (reg *testRegistry) failFirst(n int, match func(*http.Request) bool) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	reg.failLeft, reg.failMatch, reg.failed = n, match, 0
}

func (reg *testRegistry) failures() int {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	return reg.failed
}

// mark returns the index of the next request, for writesSince.
func (reg *testRegistry) mark() int {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	return len(reg.requests)
}

// writesSince lists the requests that change state, from mark on.
func (reg *testRegistry) writesSince(mark int) []string {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	var out []string
	for _, r := range reg.requests[mark:] {
		if !strings.HasPrefix(r, "GET ") && !strings.HasPrefix(r, "HEAD ") {
			out = append(out, r)
		}
	}
	return out
}

// state reads repo's tags with go-containerregistry directly, so the
// assertions do not depend on the code under test.
func (reg *testRegistry) state(t *testing.T, repo string) map[string]string {
	t.Helper()
	r, err := name.NewRepository(repo, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	opt := remote.WithAuth(&authn.Basic{Username: reg.auth.Username, Password: reg.auth.Password})
	tags, err := remote.List(r, opt)
	if isNotFound(err) {
		return map[string]string{}
	}
	if err != nil {
		t.Fatalf("list %s: %v", repo, err)
	}
	out := make(map[string]string, len(tags))
	for _, tag := range tags {
		desc, err := remote.Head(r.Tag(tag), opt)
		if err != nil {
			t.Fatalf("head %s:%s: %v", repo, tag, err)
		}
		out[tag] = desc.Digest.String()
	}
	return out
}

// has reports whether repo has a manifest with the digest.
func (reg *testRegistry) has(t *testing.T, repo, digest string) bool {
	t.Helper()
	r, err := name.NewDigest(repo+"@"+digest, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	_, err = remote.Head(r, remote.WithAuth(&authn.Basic{Username: reg.auth.Username, Password: reg.auth.Password}))
	if isNotFound(err) {
		return false
	}
	if err != nil {
		t.Fatalf("head %s: %v", r, err)
	}
	return true
}

func randomImage(t *testing.T) v1.Image {
	t.Helper()
	img, err := random.Image(512, 2)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func digestOf(t *testing.T, img v1.Image) string {
	t.Helper()
	h, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

// pushed pushes a fresh random image to repo and returns its digest.
func pushed(t *testing.T, reg *testRegistry, repo string) string {
	t.Helper()
	d, err := PushByDigest(t.Context(), repo, randomImage(t), reg.auth, reg.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// assertNoSecret fails if any credential byte sequence is in err.
func assertNoSecret(t *testing.T, err error, auth Auth) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	for _, s := range []string{
		auth.Password,
		base64.StdEncoding.EncodeToString([]byte(auth.Username + ":" + auth.Password)),
	} {
		if s != "" && strings.Contains(msg, s) {
			t.Errorf("error leaks a credential: %q", msg)
		}
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
