package signing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
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

	tok, err := TokenRequest{URL: srv.URL + "/token?api-version=2.0", BearerToken: bearer}.Request(ctx, SigstoreAudience, clock)
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
		{"wrong bearer", TokenRequest{URL: srv.URL + "/token", BearerToken: "nope"}, "401"},
		{"expired token", TokenRequest{URL: srv.URL + "/expired", BearerToken: bearer}, "expired"},
		{"no value", TokenRequest{URL: srv.URL + "/empty", BearerToken: bearer}, "no value"},
		{"no URL", TokenRequest{BearerToken: bearer}, "needs the URL"},
		{"no bearer", TokenRequest{URL: srv.URL}, "needs the URL and the bearer token"},
		{"not a URL", TokenRequest{URL: "ftp://" + bearer, BearerToken: bearer}, "not an http(s) URL"},
		{"unreachable", TokenRequest{URL: "http://127.0.0.1:1/" + bearer, BearerToken: bearer}, "token request"},
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
