package plainhttp

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Loopback forwards HTTP from a loopback port to the endpoint, keeping the path, and stops
// when its context ends; an endpoint nothing listens on is an error naming it.
func TestLoopback(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s via %s", r.Method, r.URL.Path, r.Host)
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	local, err := Loopback(ctx, srv.URL+"/api/")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(local, "http://127.0.0.1:") || !strings.HasSuffix(local, "/api/") || strings.HasPrefix(local, srv.URL) {
		t.Fatalf("local URL %q", local)
	}
	for range 3 { // one connection each
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Get(local + "repos")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		// The Host header is the loopback address: the demo server's links name it.
		if want := "GET /api/repos via " + strings.TrimPrefix(strings.TrimSuffix(local, "/api/"), "http://"); string(b) != want {
			t.Fatalf("answer %q, want %q", b, want)
		}
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", strings.TrimSuffix(strings.TrimPrefix(local, "http://"), "/api/"), time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the forwarder still listens after its context ended")
		}
		time.Sleep(10 * time.Millisecond)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	if _, err := Loopback(context.Background(), "http://"+closed+"/"); err == nil || !strings.Contains(err.Error(), closed) {
		t.Fatalf("err = %v", err)
	}
}
