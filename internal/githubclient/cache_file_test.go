package githubclient

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/githubsim"
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
	seal := mustSeal(t, token)
	exported, err := first.Export(seal)
	if err != nil {
		t.Fatal(err)
	}
	again, err := first.Export(seal)
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
	if dropped, err := second.Import(exported, seal); err != nil || dropped != 0 {
		t.Fatalf("Import = %d dropped, %v", dropped, err)
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
		{"the unsealed format", gz(`{"format": "shipyard-github-etag-cache/1", "entries": []}`), "starts cold"},
		{"entry without ETag", gz(`{"format": "shipyard-github-etag-cache/2", "entries": [{"key": "k"}]}`), "no key or ETag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCache(0)
			_, err := c.Import(tt.data, mustSeal(t, token))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Import = %v, want %q", err, tt.want)
			}
			if c.Len() != 0 {
				t.Errorf("a refused import left %d entries", c.Len())
			}
		})
	}
}

func mustSeal(t *testing.T, tok string) CacheSeal {
	t.Helper()
	s, err := NewCacheSeal(tok)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// exportedDoc decodes an export into plain JSON values, for tests that tamper with it.
func exportedDoc(t *testing.T, data []byte) map[string]any {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.NewDecoder(zr).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func gzipJSON(t *testing.T, doc any) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if err := json.NewEncoder(zw).Encode(doc); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestCacheImportDropsATamperedEntry: whoever can write the stored cache but has no token
// cannot make a 304 replay their content: an entry whose body, ETag, headers or key
// changed fails its MAC, is dropped, and the read is fetched again in full.
func TestCacheImportDropsATamperedEntry(t *testing.T) {
	ctx := context.Background()
	f := setup(t, false)
	f.repo.CommitOnBranch("main", "init", map[string]string{"models/upstreams.json": "{}\n"})
	first := NewCache(0)
	c1, err := NewClient(f.sim.URL, token, WithCache(first), WithSleep(f.clock.Sleep), WithClock(f.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c1.FileAt(ctx, "octo", "demo", "models/upstreams.json", "main"); err != nil {
		t.Fatal(err)
	}
	seal := mustSeal(t, token)
	exported, err := first.Export(seal)
	if err != nil {
		t.Fatal(err)
	}
	planted := base64.StdEncoding.EncodeToString([]byte(`{"planted": true}` + "\n"))
	tamper := []struct {
		name string
		edit func(e map[string]any)
	}{
		{"body", func(e map[string]any) {
			body, _ := base64.StdEncoding.DecodeString(e["body"].(string))
			e["body"] = []byte(strings.Replace(string(body), `"content":"`, `"content":"`+planted, 1))
		}},
		{"etag", func(e map[string]any) { e["etag"] = `W/"planted"` }},
		{"header", func(e map[string]any) { e["header"] = map[string][]string{"Content-Type": {"text/plain"}} }},
		{"key", func(e map[string]any) {
			e["key"] = strings.Replace(e["key"].(string), "upstreams.json", "other.json", 1)
		}},
		{"mac", func(e map[string]any) { e["mac"] = base64.StdEncoding.EncodeToString(make([]byte, 32)) }},
		{"no mac", func(e map[string]any) { delete(e, "mac") }},
	}
	for _, tt := range tamper {
		t.Run(tt.name, func(t *testing.T) {
			doc := exportedDoc(t, exported)
			tt.edit(doc["entries"].([]any)[0].(map[string]any))
			c := NewCache(0)
			dropped, err := c.Import(gzipJSON(t, doc), seal)
			if err != nil || dropped != 1 || c.Len() != 0 {
				t.Fatalf("Import = %d dropped, %v; %d entries kept", dropped, err, c.Len())
			}
			client, err := NewClient(f.sim.URL, token, WithCache(c), WithSleep(f.clock.Sleep), WithClock(f.clock.Now))
			if err != nil {
				t.Fatal(err)
			}
			content, found, err := client.FileAt(ctx, "octo", "demo", "models/upstreams.json", "main")
			if err != nil || !found || string(content) != "{}\n" {
				t.Fatalf("read %q, %v, %v", content, found, err)
			}
			if s := client.Stats(); s.NotModified != 0 {
				t.Errorf("a dropped entry was revalidated: %+v", s)
			}
		})
	}
}

// TestCacheExportRevealsNothingAboutTheToken: the export of the same reads is the same
// for two tokens but for the MACs, holds neither the token nor any hash of it, and one
// token's export is useless to the other.
func TestCacheExportRevealsNothingAboutTheToken(t *testing.T) {
	ctx := context.Background()
	f := setup(t, false)
	f.repo.CommitOnBranch("main", "init", map[string]string{"models/upstreams.json": "{}\n"})
	const other = "ghp_other0SECRET0token0value"
	f.sim.AddToken(other, githubsim.Token{})
	exports := map[string][]byte{}
	for _, tok := range []string{token, other} {
		cache := NewCache(0)
		c, err := NewClient(f.sim.URL, tok, WithCache(cache), WithSleep(f.clock.Sleep), WithClock(f.clock.Now))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.FileAt(ctx, "octo", "demo", "models/upstreams.json", "main"); err != nil {
			t.Fatal(err)
		}
		if exports[tok], err = cache.Export(mustSeal(t, tok)); err != nil {
			t.Fatal(err)
		}
		plain, _ := json.Marshal(exportedDoc(t, exports[tok]))
		sum := sha256.Sum256([]byte(tok))
		for _, leak := range []string{tok, hex.EncodeToString(sum[:4]), cacheScope(tok)} {
			if strings.Contains(string(plain), leak) {
				t.Errorf("the export holds %q, derived from the token", leak)
			}
		}
	}
	keys := func(data []byte) []string {
		var out []string
		for _, e := range exportedDoc(t, data)["entries"].([]any) {
			out = append(out, e.(map[string]any)["key"].(string))
		}
		return out
	}
	if a, b := keys(exports[token]), keys(exports[other]); len(a) != 1 || !slices.Equal(a, b) {
		t.Errorf("keys %q and %q: want the same key for the same read", a, b)
	}
	c := NewCache(0)
	if dropped, err := c.Import(exports[other], mustSeal(t, token)); err != nil || dropped != 1 || c.Len() != 0 {
		t.Errorf("another token's export: %d dropped, %v, %d kept", dropped, err, c.Len())
	}
	// Each token's export has a name of its own, which holds nothing of the token either.
	a, b := mustSeal(t, token), mustSeal(t, other)
	if a.Name() == b.Name() || a.Name() != mustSeal(t, token).Name() || len(a.Name()) != 32 {
		t.Errorf("names %q and %q: want one stable name per token", a.Name(), b.Name())
	}
	full := sha256.Sum256([]byte(token))
	for _, leak := range []string{token, cacheScope(token), hex.EncodeToString(full[:])} {
		if strings.Contains(a.Name(), leak) || strings.Contains(leak, a.Name()) {
			t.Errorf("the name %q and %q, derived from the token, overlap", a.Name(), leak)
		}
	}
	if _, err := NewCacheSeal(""); err == nil {
		t.Error("an anonymous client got a seal")
	}
	if s := fmt.Sprintf("%v %+v %#v %s", mustSeal(t, token), mustSeal(t, token), mustSeal(t, token), mustSeal(t, token)); strings.Count(s, "[redacted]") != 4 {
		t.Errorf("a seal formats as %q", s)
	}
}
