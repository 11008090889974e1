package upstreams_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/upstreams"
)

func TestPyPIRequestsHaveATimeout(t *testing.T) {
	const timeout = 50 * time.Millisecond
	const doc = `{"info":{"name":"cloudcoil","version":"1.0.0"},"releases":{"1.0.0":[{"yanked":false}]}}`
	readers := []struct {
		name string
		read func(ctx context.Context, baseURL string) error
	}{
		{"FetchPyPI", func(ctx context.Context, baseURL string) error {
			_, err := upstreams.FetchPyPI(ctx, baseURL, "cloudcoil", nil)
			return err
		}},
		{"PyPIVersions", func(ctx context.Context, baseURL string) error {
			_, err := modelenv.PyPIVersions(ctx, nil, baseURL, "cloudcoil")
			return err
		}},
	}
	tests := []struct {
		name string
		// serve answers within the test's lifetime; release ends a stall.
		serve   func(w http.ResponseWriter, r *http.Request, release <-chan struct{})
		wantErr bool
	}{
		{"no answer at all", func(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
			stall(r, release)
		}, true},
		{"headers, then a stalled body", func(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"info":`)
			w.(http.Flusher).Flush()
			stall(r, release)
		}, true},
		{"a prompt answer is unaffected", func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, doc)
		}, false},
	}
	for _, r := range readers {
		for _, tt := range tests {
			t.Run(r.name+"/"+tt.name, func(t *testing.T) {
				upstreams.SetPyPITimeout(t, timeout)
				release := make(chan struct{})
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					tt.serve(w, r, release)
				}))
				t.Cleanup(srv.Close)
				t.Cleanup(func() { close(release) })
				start := time.Now()
				err := r.read(context.Background(), srv.URL)
				if elapsed := time.Since(start); elapsed > 5*time.Second {
					t.Errorf("took %s with a %s bound", elapsed, timeout)
				}
				if (err != nil) != tt.wantErr {
					t.Fatalf("err = %v, want an error: %v", err, tt.wantErr)
				}
				if tt.wantErr && !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("err = %v, want it to say the time ran out", err)
				}
			})
		}
	}
}

// stall holds a request until the client gives up or the test ends.
func stall(r *http.Request, release <-chan struct{}) {
	select {
	case <-r.Context().Done():
	case <-release:
	}
}
