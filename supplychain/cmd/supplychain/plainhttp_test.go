package main

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"dagger/shipyard/supplychain/signing"
)

// clearListener is a registry, Fulcio or Rekor without TLS: it answers every request with
// a Basic challenge, as a registry does, and records the credentials it is sent.
type clearListener struct {
	*httptest.Server
	mu       sync.Mutex
	requests int
	auth     []string
	bodies   []string
}

func newClearListener(t *testing.T) *clearListener {
	t.Helper()
	l := &clearListener{}
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body strings.Builder
		if r.Body != nil {
			buf := make([]byte, 1<<16)
			n, _ := r.Body.Read(buf)
			body.Write(buf[:n])
		}
		l.mu.Lock()
		l.requests++
		if a := r.Header.Get("Authorization"); a != "" {
			l.auth = append(l.auth, a)
		}
		l.bodies = append(l.bodies, body.String())
		l.mu.Unlock()
		w.Header().Set("WWW-Authenticate", `Basic realm="clear"`)
		http.Error(w, `{"errors":[{"code":"UNAUTHORIZED"}]}`, http.StatusUnauthorized)
	}))
	t.Cleanup(l.Close)
	return l
}

// sent reports whether secret reached the listener, in an Authorization header (Basic
// encodes it) or a body.
func (l *clearListener) sent(user, secret string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + secret))
	for _, a := range l.auth {
		if strings.Contains(a, basic) || strings.Contains(a, secret) {
			return true
		}
	}
	for _, b := range l.bodies {
		if strings.Contains(b, secret) {
			return true
		}
	}
	return false
}

// addr is the listener's address as localhost:<port>: another spelling of the loopback
// host than the test registry's 127.0.0.1, which the world's arguments name with
// --plain-http.
func (l *clearListener) addr() string {
	return strings.Replace(strings.TrimPrefix(l.URL, "http://"), "127.0.0.1", "localhost", 1)
}

// A registry reached without TLS gets no password unless --plain-http names its host:
// go-containerregistry alone would fall back to plain HTTP for loopback, RFC 1918 and
// *.local registries, and send the Basic header after the challenge.
func TestRegistryPasswordNeverSentInClear(t *testing.T) {
	w := newWorld(t)
	l := newClearListener(t)
	image := l.addr() + "/org/filer@sha256:" + strings.Repeat("1", 64)
	for _, args := range [][]string{w.publishArgs("sign", image), w.verifyArgs(image, identityRE, issuer)} {
		for _, plain := range [][]string{nil, {"--plain-http", "127.0.0.2"}, {"--plain-http", "localhost.example"}} {
			code, _, errOut := w.run("", append(args, plain...)...)
			if code == 0 || l.sent(w.user, w.password) {
				t.Errorf("%s %v: exit %d, password sent in clear: %t\n%s", args[0], plain, code, l.sent(w.user, w.password), errOut)
			}
		}
	}
	if l.requests != 0 {
		t.Errorf("%d plain HTTP requests reached the listener, want none", l.requests)
	}
	// The host --plain-http names does get them: the listener would have seen a leak.
	code, _, _ := w.run("", append(w.verifyArgs(image, identityRE, issuer), "--plain-http", "localhost")...)
	if code == 0 || !l.sent(w.user, w.password) {
		t.Errorf("with --plain-http localhost: exit %d, password sent %t; want the login tried", code, l.sent(w.user, w.password))
	}
}

// Fulcio and Rekor given as http:// URLs are refused unless --plain-http names their host:
// the identity token goes to Fulcio, and whoever reads it signs as the workflow until it
// expires.
func TestSigstoreURLsOverPlainHTTPNeedTheirHost(t *testing.T) {
	w := newWorld(t)
	d, _ := w.reg.PushRandom(t, "elixircloud/tesk-core-filer", w.auth()...)
	fulcio := newClearListener(t)
	url := "http://" + fulcio.addr()
	for _, urls := range [][]string{{"--fulcio-url", url}, {"--rekor-url", url}} {
		args := append(w.publishArgs("sign", d.String()), urls...)
		var out, errOut strings.Builder
		code := run(t.Context(), args, strings.NewReader(""), &out, &errOut, signing.NewSigner)
		if code != 2 || !strings.Contains(errOut.String(), "plain HTTP") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error about plain HTTP", urls, code, errOut.String())
		}
	}
	if fulcio.requests != 0 || fulcio.sent("", w.token) {
		t.Errorf("%d requests reached the clear Fulcio (token sent: %t), want none", fulcio.requests, fulcio.sent("", w.token))
	}
}
