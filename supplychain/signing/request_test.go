package signing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestTokenRequest(t *testing.T) {
	const bearer = "request-bearer-secret-0123456789"
	now := time.Unix(1_700_000_000, 0)
	valid := jwt(`{"iss":"https://token.actions.githubusercontent.com","sub":"repo:o/r:ref:refs/tags/v1","job_workflow_ref":"o/r/.github/workflows/release.yml@refs/tags/v1","exp":1700000300}`)
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		switch {
		case r.Header.Get("Authorization") != "bearer "+bearer:
			http.Error(w, "bad bearer "+r.Header.Get("Authorization"), http.StatusUnauthorized)
		case r.URL.Path == "/expired":
			fmt.Fprintf(w, `{"count":1,"value":%q}`, jwt(`{"iss":"i","sub":"s","exp":1699999999}`))
		case r.URL.Path == "/empty":
			fmt.Fprint(w, `{"count":0}`)
		default:
			fmt.Fprintf(w, `{"count":1,"value":%q}`, valid)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	clock := func() time.Time { return now }
	// srv is plain HTTP on loopback, which the command's --plain-http names.
	loopback := []string{"127.0.0.1"}

	tok, err := TokenRequest{URL: srv.URL + "/token?api-version=2.0", BearerToken: bearer, PlainHTTP: loopback}.Request(ctx, SigstoreAudience, clock)
	if err != nil {
		t.Fatal(err)
	}
	if q := got.URL.Query(); q.Get("audience") != "sigstore" || q.Get("api-version") != "2.0" {
		t.Errorf("query %q, want audience=sigstore next to the URL's own parameters", got.URL.RawQuery)
	}
	if tok.Identity() != "https://github.com/o/r/.github/workflows/release.yml@refs/tags/v1" || !tok.Expiry.Equal(now.Add(5*time.Minute)) {
		t.Errorf("token %s, expiry %s", tok.Identity(), tok.Expiry)
	}

	tests := []struct {
		name string
		r    TokenRequest
		want string
	}{
		{"wrong bearer", TokenRequest{URL: srv.URL + "/token", BearerToken: "nope", PlainHTTP: loopback}, "401"},
		{"expired token", TokenRequest{URL: srv.URL + "/expired", BearerToken: bearer, PlainHTTP: loopback}, "expired"},
		{"no value", TokenRequest{URL: srv.URL + "/empty", BearerToken: bearer, PlainHTTP: loopback}, "no value"},
		{"no URL", TokenRequest{BearerToken: bearer, PlainHTTP: loopback}, "needs the URL"},
		{"no bearer", TokenRequest{URL: srv.URL, PlainHTTP: loopback}, "needs the URL and the bearer token"},
		{"not a URL", TokenRequest{URL: "ftp://" + bearer, BearerToken: bearer, PlainHTTP: loopback}, "not an http(s) URL"},
		{"unreachable", TokenRequest{URL: "http://127.0.0.1:1/" + bearer, BearerToken: bearer, PlainHTTP: loopback}, "token request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.r.Request(ctx, SigstoreAudience, clock)
			if !errors.Is(err, ErrToken) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrToken mentioning %q", err, tt.want)
			}
			if strings.Contains(err.Error(), bearer) {
				t.Errorf("the error holds the bearer token: %v", err)
			}
		})
	}
}

// TestTokenRequestPlainHTTP: the bearer token mints identity tokens, so the request goes
// over plain HTTP only to a host --plain-http names, like every other request of the
// signing command; any other http:// URL, or a redirect to one, is refused before a
// request carries the bearer there.
func TestTokenRequestPlainHTTP(t *testing.T) {
	const bearer = "request-bearer-secret-plain-0123456789"
	valid := jwt(`{"iss":"https://token.actions.githubusercontent.com","sub":"repo:o/r:ref:refs/tags/v1","exp":1700000300}`)
	clock := func() time.Time { return time.Unix(1_700_000_000, 0) }
	// endpoint counts the requests that reached it and those that carried the bearer.
	type endpoint struct {
		requests, bearers atomic.Int32
	}
	serve := func(e *endpoint) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			e.requests.Add(1)
			if strings.Contains(r.Header.Get("Authorization"), bearer) {
				e.bearers.Add(1)
			}
			fmt.Fprintf(w, `{"count":1,"value":%q}`, valid)
		}
	}
	var plain, tls endpoint
	plainSrv := httptest.NewServer(serve(&plain))
	defer plainSrv.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			// Same host, another port: Go's client keeps the Authorization header.
			http.Redirect(w, r, plainSrv.URL+"/token", http.StatusFound)
			return
		}
		serve(&tls)(w, r)
	}))
	defer tlsSrv.Close()

	tests := []struct {
		name string
		r    TokenRequest
		// ok is whether the token comes back; reached is the endpoint that must see the
		// bearer (nil: none may).
		ok      bool
		reached *endpoint
	}{
		{"plain HTTP to a host no one named", TokenRequest{URL: plainSrv.URL + "/token"}, false, nil},
		{"plain HTTP to another host than the one named", TokenRequest{URL: plainSrv.URL + "/token", PlainHTTP: []string{"10.20.30.40", "localhost"}}, false, nil},
		{"https redirecting to plain HTTP", TokenRequest{URL: tlsSrv.URL + "/redirect", Client: tlsSrv.Client()}, false, nil},
		{"https", TokenRequest{URL: tlsSrv.URL + "/token", Client: tlsSrv.Client()}, true, &tls},
		{"plain HTTP to a host --plain-http names", TokenRequest{URL: plainSrv.URL + "/token", PlainHTTP: []string{"127.0.0.1"}}, true, &plain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain.requests.Store(0)
			plain.bearers.Store(0)
			tls.bearers.Store(0)
			tt.r.BearerToken = bearer
			tok, err := tt.r.Request(context.Background(), SigstoreAudience, clock)
			if tt.ok {
				if err != nil || tok == nil {
					t.Fatalf("Request = %v, %v, want a token", tok, err)
				}
			} else {
				if !errors.Is(err, ErrToken) || !errors.Is(err, ErrPlainHTTP) || !strings.Contains(err.Error(), "https") {
					t.Fatalf("err = %v, want ErrToken and ErrPlainHTTP, advising https", err)
				}
				if strings.Contains(err.Error(), bearer) || strings.Contains(err.Error(), "/token") {
					t.Errorf("the error holds the bearer or the URL: %v", err)
				}
				if n := plain.requests.Load(); n != 0 {
					t.Errorf("%d requests reached the plain-HTTP endpoint, want none", n)
				}
			}
			for _, e := range []*endpoint{&plain, &tls} {
				if n := e.bearers.Load(); (e == tt.reached) != (n > 0) {
					t.Errorf("the bearer reached the %s endpoint %d times", map[bool]string{true: "plain", false: "https"}[e == &plain], n)
				}
			}
		})
	}
}
