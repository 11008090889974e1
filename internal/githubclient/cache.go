package githubclient

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// maxCachedBody bounds one cached response; larger ones are passed through uncached.
const maxCachedBody = 8 << 20

// Cache remembers ETags and bodies of GET responses so that a repeated request is sent
// conditionally and, when GitHub answers 304 Not Modified, served from memory. It is safe
// for concurrent use.
type Cache struct {
	mu      sync.Mutex
	max     int
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	etag   string
	body   []byte
	header http.Header
}

// NewCache returns a cache holding at most maxEntries responses (1024 when 0 or less).
func NewCache(maxEntries int) *Cache {
	if maxEntries <= 0 {
		maxEntries = 1024
	}
	return &Cache{max: maxEntries, entries: map[string]*cacheEntry{}}
}

func (c *Cache) get(key string) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[key]
}

func (c *Cache) put(key string, e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.max {
		// Evict an arbitrary entry: a miss only costs one unconditional request.
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[key] = e
}

// tokenHeaders describe the token that asked, not the resource: a cached answer's may be
// stale (a classic token's scopes can change while it stays the same token).
var tokenHeaders = []string{"X-Oauth-Scopes", "X-Accepted-Oauth-Scopes", "X-Accepted-Github-Permissions"}

// response rebuilds a 200 from the entry for a 304, taking the fresh rate-limit and
// date headers of the 304 itself, and the token headers from it alone.
func (e *cacheEntry) response(req *http.Request, notModified *http.Response) *http.Response {
	h := e.header.Clone()
	for _, k := range tokenHeaders {
		delete(h, k)
	}
	for k, vs := range notModified.Header {
		// Keys are canonical: X-RateLimit-Remaining arrives as X-Ratelimit-Remaining.
		if k == "Date" || k == "Etag" || strings.HasPrefix(k, "X-Ratelimit-") || slices.Contains(tokenHeaders, k) {
			h[k] = vs
		}
	}
	return &http.Response{
		Status:        "200 OK",
		StatusCode:    http.StatusOK,
		Proto:         notModified.Proto,
		ProtoMajor:    notModified.ProtoMajor,
		ProtoMinor:    notModified.ProtoMinor,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(e.body)),
		ContentLength: int64(len(e.body)),
		Request:       req,
	}
}
