package github

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
)

// A Cache lives as long as its process, but the runs that should answer each other with
// 304s (a scheduled job, a re-run) are separate processes. Export and Import carry the
// cache from one to the next through storage the caller owns: a file, or a Dagger cache
// volume. The bytes hold response bodies the token could read (repository contents,
// releases, pull requests), keyed by a hash of the token, never the token itself; keep
// them where the token's readers alone can reach.

// cacheFileFormat names the exported layout; Import refuses any other, so a changed layout
// starts cold instead of misreading an old file.
const cacheFileFormat = "shipyard-github-etag-cache/1"

// maxCacheFile bounds an imported cache once decompressed, well above the cache's own bound
// of entries times maxCachedBody that a real export stays under.
const maxCacheFile = 256 << 20

type cacheFile struct {
	Format  string           `json:"format"`
	Entries []cacheFileEntry `json:"entries"`
}

type cacheFileEntry struct {
	Key    string      `json:"key"`
	ETag   string      `json:"etag"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

// Export returns the cache's entries as gzip-compressed JSON. Entries are sorted by key and
// the gzip header carries no time, so the same cache exports the same bytes (and a Dagger
// step writing them stays cached when nothing changed).
func (c *Cache) Export() ([]byte, error) {
	c.mu.Lock()
	f := cacheFile{Format: cacheFileFormat, Entries: make([]cacheFileEntry, 0, len(c.entries))}
	for k, e := range c.entries {
		h := e.header.Clone()
		h.Del("Set-Cookie") // GitHub's API sets none; never persist one if it did
		f.Entries = append(f.Entries, cacheFileEntry{Key: k, ETag: e.etag, Header: h, Body: e.body})
	}
	c.mu.Unlock()
	sort.Slice(f.Entries, func(i, j int) bool { return f.Entries[i].Key < f.Entries[j].Key })

	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(f); err != nil {
		return nil, fmt.Errorf("github: export ETag cache: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("github: export ETag cache: %w", err)
	}
	return buf.Bytes(), nil
}

// Import adds the entries of an exported cache, replacing entries with the same key; past
// the cache's size the usual eviction applies. Data that is not an export of this format
// is an error and leaves the cache unchanged: the caller then simply starts cold, which
// costs full requests but never a wrong answer, since every entry is revalidated by GitHub
// before it is used.
func (c *Cache) Import(data []byte) error {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("github: import ETag cache: not a gzip-compressed export: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxCacheFile+1))
	if err != nil {
		return fmt.Errorf("github: import ETag cache: %w", err)
	}
	if len(raw) > maxCacheFile {
		return fmt.Errorf("github: import ETag cache: larger than %d bytes once decompressed", maxCacheFile)
	}
	var f cacheFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return fmt.Errorf("github: import ETag cache: %w", err)
	}
	if f.Format != cacheFileFormat {
		return fmt.Errorf("github: import ETag cache: format %q, want %q (an export of another version starts cold)", f.Format, cacheFileFormat)
	}
	for i, e := range f.Entries {
		if e.Key == "" || e.ETag == "" {
			return fmt.Errorf("github: import ETag cache: entry %d has no key or ETag", i)
		}
		if len(e.Body) > maxCachedBody {
			return errors.New("github: import ETag cache: an entry is larger than the cache keeps")
		}
	}
	for _, e := range f.Entries {
		h := e.Header
		if h == nil {
			h = http.Header{}
		}
		c.put(e.Key, &cacheEntry{etag: e.ETag, body: e.Body, header: h})
	}
	return nil
}

// Len is the number of responses the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
