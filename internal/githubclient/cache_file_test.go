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

	"dagger/shipyard/internal/demoworld/githubsim"
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
		{"the format in clear", gz(`{"format": "shipyard-github-etag-cache/2", "entries": [{"key": "k", "etag": "e"}]}`), "starts cold"},
		{"an entry that is not base64", gz(`{"format": "shipyard-github-etag-cache/3", "entries": ["%%"]}`), "illegal base64"},
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
// cannot make a 304 replay their content: an entry changed anywhere, replaced by one in
// clear or sealed with another token does not open, is dropped, and the read is fetched
// again in full.
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
	other := mustSeal(t, "ghp_other0SECRET0token0value")
	flip := func(i func(n int) int) func([]byte) []byte {
		return func(b []byte) []byte {
			b = slices.Clone(b)
			b[i(len(b))] ^= 1
			return b
		}
	}
	// resealed opens the entry, changes it and seals it again with s.
	resealed := func(s CacheSeal, change func(*cacheFileEntry)) func([]byte) []byte {
		return func(b []byte) []byte {
			e, err := seal.open(b)
			if err != nil {
				t.Fatal(err)
			}
			change(&e)
			out, err := s.seal(e)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
	}
	planted := func(e *cacheFileEntry) {
		e.Body = []byte(strings.Replace(string(e.Body), `"content":"`, `"content":"`+base64.StdEncoding.EncodeToString([]byte("planted\n")), 1))
	}
	tamper := []struct {
		name string
		edit func(sealed []byte) []byte
	}{
		{"a bit of the nonce", flip(func(int) int { return 0 })},
		{"a bit of the ciphertext", flip(func(n int) int { return n / 2 })},
		{"a bit of the tag", flip(func(n int) int { return n - 1 })},
		{"cut short", func(b []byte) []byte { return b[:10] }},
		{"empty", func([]byte) []byte { return nil }},
		{"an entry in clear", func(b []byte) []byte {
			e, err := seal.open(b)
			if err != nil {
				t.Fatal(err)
			}
			planted(&e)
			clear, _ := json.Marshal(e)
			return clear
		}},
		{"sealed with another token", resealed(other, planted)},
		{"sealed with the token but without ETag", resealed(seal, func(e *cacheFileEntry) { e.ETag = "" })},
	}
	for _, tt := range tamper {
		t.Run(tt.name, func(t *testing.T) {
			doc := exportedDoc(t, exported)
			entries := doc["entries"].([]any)
			b, err := base64.StdEncoding.DecodeString(entries[0].(string))
			if err != nil {
				t.Fatal(err)
			}
			entries[0] = tt.edit(b)
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

// TestCacheExportRevealsNothingAboutTheToken: the export of the same reads differs for two
// tokens (each sealed with its own keys), holds neither the token nor any hash of it, and
// one token's export is useless to the other.
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
		plain := readableText(exportedDoc(t, exports[tok]))
		sum := sha256.Sum256([]byte(tok))
		for _, leak := range []string{tok, hex.EncodeToString(sum[:4]), cacheScope(tok)} {
			if strings.Contains(plain, leak) {
				t.Errorf("the export holds %q, derived from the token", leak)
			}
		}
	}
	if bytes.Equal(exports[token], exports[other]) {
		t.Error("two tokens' exports of the same read are the same bytes")
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

// TestCacheExportKeepsAnswersUnreadableWithoutTheToken: the cache volume a pull request's
// code can read also holds what the checks read with CI_GITHUB_TOKEN, private
// repositories included; an export shows nothing of a stored answer to whoever lacks the
// token: not the body (as sent or as GitHub's base64), not the request's path, not the
// ETag or the headers. The token's own import still answers the read with a 304.
func TestCacheExportKeepsAnswersUnreadableWithoutTheToken(t *testing.T) {
	ctx := context.Background()
	f := setup(t, false)
	repo := f.sim.AddRepo("octo", "secret-plans")
	const content = "launch the rocket on friday\n"
	repo.CommitOnBranch("main", "init", map[string]string{"roadmap.md": content})
	cache := NewCache(0)
	c, err := NewClient(f.sim.URL, token, WithCache(cache), WithSleep(f.clock.Sleep), WithClock(f.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	if got, found, err := c.FileAt(ctx, "octo", "secret-plans", "roadmap.md", "main"); err != nil || !found || string(got) != content {
		t.Fatalf("FileAt = %q, %v, %v", got, found, err)
	}
	leaks := []string{"launch the rocket", base64.StdEncoding.EncodeToString([]byte(content))[:24], "secret-plans", "roadmap.md"}
	cache.mu.Lock()
	for _, e := range cache.entries {
		leaks = append(leaks, strings.Trim(strings.TrimPrefix(e.etag, "W/"), `"`))
		for k, vs := range e.header {
			if k == "Content-Type" || k == "Etag" || k == "Last-Modified" {
				leaks = append(leaks, vs...)
			}
		}
	}
	cache.mu.Unlock()
	seal := mustSeal(t, token)
	exported, err := cache.Export(seal)
	if err != nil {
		t.Fatal(err)
	}
	readable := readableText(exportedDoc(t, exported))
	for _, leak := range leaks {
		if leak != "" && strings.Contains(readable, leak) {
			t.Errorf("the export shows %q to whoever can read the volume", leak)
		}
	}

	again := NewCache(0)
	if dropped, err := again.Import(exported, seal); err != nil || dropped != 0 || again.Len() != 1 {
		t.Fatalf("Import = %d dropped, %v; %d entries", dropped, err, again.Len())
	}
	c2, err := NewClient(f.sim.URL, token, WithCache(again), WithSleep(f.clock.Sleep), WithClock(f.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := c2.FileAt(ctx, "octo", "secret-plans", "roadmap.md", "main"); err != nil || string(got) != content {
		t.Fatalf("FileAt through the import = %q, %v", got, err)
	}
	if s := c2.Stats(); s.NotModified != 1 {
		t.Errorf("stats %+v, want the read answered 304", s)
	}
}

// readableText is every string of a decoded JSON document, with what base64 decodes each
// to (bytes are base64 in JSON, and GitHub's contents are base64 inside that): what
// anyone reading the file sees without a key.
func readableText(v any) string {
	var out strings.Builder
	var walk func(v any)
	var decoded func(s string, depth int)
	decoded = func(s string, depth int) {
		out.WriteString(s + "\n")
		if depth == 0 {
			return
		}
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			decoded(string(b), depth-1)
			var inner any
			if json.Unmarshal(b, &inner) == nil {
				walk(inner)
			}
		}
	}
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			decoded(strings.ReplaceAll(v, "\n", ""), 2)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				out.WriteString(k + "\n")
				walk(e)
			}
		}
	}
	walk(v)
	return out.String()
}
