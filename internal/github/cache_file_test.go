package github

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"strings"
	"testing"
)

func TestCacheCarriesOverBetweenClients(t *testing.T) {
	ctx := context.Background()
	f := setup(t, false)
	f.repo.CommitOnBranch("main", "init", map[string]string{"models/upstreams.json": "{}\n"})

	// First process: a cold cache, one full answer, exported at the end.
	first := NewCache(0)
	c1, err := NewClient(f.sim.URL, token, WithCache(first), WithSleep(f.clock.Sleep), WithClock(f.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c1.FileAt(ctx, "octo", "demo", "models/upstreams.json", "main"); err != nil {
		t.Fatal(err)
	}
	exported, err := first.Export()
	if err != nil {
		t.Fatal(err)
	}
	again, err := first.Export()
	if err != nil || !bytes.Equal(exported, again) {
		t.Errorf("two exports of the same cache differ (err %v)", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(exported))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	if strings.Contains(string(plain), token) {
		t.Fatalf("the exported cache holds the token")
	}

	// Second process: the imported cache makes the same read a free 304.
	second := NewCache(0)
	if err := second.Import(exported); err != nil {
		t.Fatal(err)
	}
	if second.Len() != 1 {
		t.Fatalf("imported %d entries, want 1", second.Len())
	}
	c2, err := NewClient(f.sim.URL, token, WithCache(second), WithSleep(f.clock.Sleep), WithClock(f.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	before := f.sim.RateLimit(token).Used
	content, found, err := c2.FileAt(ctx, "octo", "demo", "models/upstreams.json", "main")
	if err != nil || !found || string(content) != "{}\n" {
		t.Fatalf("FileAt through the imported cache = %q, %v, %v", content, found, err)
	}
	if s := c2.Stats(); s.Requests != 1 || s.NotModified != 1 || f.sim.RateLimit(token).Used != before {
		t.Errorf("stats %+v, rate limit used %d → %d: want one free 304", s, before, f.sim.RateLimit(token).Used)
	}
}

func TestCacheImportRefusesWhatIsNotAnExport(t *testing.T) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		_, _ = w.Write([]byte(s))
		_ = w.Close()
		return b.Bytes()
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a gzip-compressed export"},
		{"plain JSON", []byte(`{"format": "shipyard-github-etag-cache/1"}`), "not a gzip-compressed export"},
		{"not JSON", gz("hello"), "invalid character"},
		{"another format", gz(`{"format": "shipyard-github-etag-cache/0", "entries": []}`), "starts cold"},
		{"entry without ETag", gz(`{"format": "shipyard-github-etag-cache/1", "entries": [{"key": "k"}]}`), "no key or ETag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCache(0)
			err := c.Import(tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Import = %v, want %q", err, tt.want)
			}
			if c.Len() != 0 {
				t.Errorf("a refused import left %d entries", c.Len())
			}
		})
	}
}
