package githubclient

import (
	"bytes"
	"compress/gzip"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
)

// cacheFileFormat names the exported layout; Import refuses any other, so a changed layout
// starts cold instead of misreading an old file.
const cacheFileFormat = "shipyard-github-etag-cache/2"

// CacheSeal binds an exported cache to the token that read it: a MAC key and the scope
// the client's cache keys carry in memory, both derived from the token with HKDF, and the
// name of the token's export among other tokens' (Name). It holds no token and formats as
// "[redacted]".
type CacheSeal struct {
	mac   []byte
	scope string
	name  string
}

func (CacheSeal) String() string { return "[redacted]" }

func (CacheSeal) GoString() string { return "[redacted]" }

// NewCacheSeal derives the seal of a token. An anonymous client has no secret to seal
// with, so its cache cannot be trusted across runs: an empty token is an error.
func NewCacheSeal(token string) (CacheSeal, error) {
	if token == "" {
		return CacheSeal{}, errors.New("github: an ETag cache is sealed with the token, and there is none")
	}
	mac, err := hkdf.Key(sha256.New, []byte(token), nil, "shipyard github etag cache mac", 32)
	if err != nil {
		return CacheSeal{}, fmt.Errorf("github: deriving the ETag cache key: %w", err)
	}
	return CacheSeal{mac: mac, scope: cacheScope(token), name: tokenMAC(token, "shipyard github etag cache name", 16)}, nil
}

// Name tells the token's export apart from other tokens' where they are kept side by side
// (a cache volume that calls with several tokens share): a MAC of the token, never the
// token, and unlike the in-memory scope, meant to be shown.
func (s CacheSeal) Name() string { return s.name }

// cacheScope is the in-memory prefix of a token's cache keys, so that two tokens (which
// may see different answers) never share an entry. It is never exported.
func cacheScope(token string) string {
	if token == "" {
		return ""
	}
	return tokenMAC(token, "shipyard github etag cache scope", 8)
}

// tokenMAC is the first n bytes of a MAC of label keyed by token, in hex: it names what
// belongs to the token and tells nothing of the token itself.
func tokenMAC(token, label string, n int) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(label))
	return hex.EncodeToString(m.Sum(nil)[:n])
}

// sum is the MAC of one entry: every field length-prefixed, so no two entries share the
// bytes it covers.
func (s CacheSeal) sum(e cacheFileEntry) ([]byte, error) {
	header, err := json.Marshal(e.Header)
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, s.mac)
	for _, field := range [][]byte{[]byte(cacheFileFormat), []byte(e.Key), []byte(e.ETag), header, e.Body} {
		_ = binary.Write(m, binary.BigEndian, uint64(len(field)))
		m.Write(field)
	}
	return m.Sum(nil), nil
}

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
	MAC    []byte      `json:"mac"`
}

// Export returns the entries of the seal's token as gzip-compressed JSON, each with its
// MAC, its key without the token's scope. Entries are sorted by key and the gzip header
// carries no time, so the same cache exports the same bytes (and a Dagger step writing
// them stays cached when nothing changed).
func (c *Cache) Export(seal CacheSeal) ([]byte, error) {
	if seal.mac == nil {
		return nil, errors.New("github: export ETag cache: no seal (NewCacheSeal)")
	}
	c.mu.Lock()
	f := cacheFile{Format: cacheFileFormat, Entries: make([]cacheFileEntry, 0, len(c.entries))}
	for k, e := range c.entries {
		key, ok := strings.CutPrefix(k, seal.scope+" ")
		if !ok {
			continue // another token's answer
		}
		h := e.header.Clone()
		h.Del("Set-Cookie") // GitHub's API sets none; never persist one if it did
		f.Entries = append(f.Entries, cacheFileEntry{Key: key, ETag: e.etag, Header: h, Body: e.body})
	}
	c.mu.Unlock()
	sort.Slice(f.Entries, func(i, j int) bool { return f.Entries[i].Key < f.Entries[j].Key })
	for i := range f.Entries {
		mac, err := seal.sum(f.Entries[i])
		if err != nil {
			return nil, fmt.Errorf("github: export ETag cache: %w", err)
		}
		f.Entries[i].MAC = mac
	}

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

// Import adds the entries of an export sealed with the same token, replacing entries with
// the same key; past the cache's size the usual eviction applies. An entry whose MAC does
// not match (changed by someone without the token, or sealed with another token) is
// dropped, so its request goes out unconditionally; dropped counts them. Data that is not
// an export of this format is an error and leaves the cache unchanged: the caller then
// starts cold, which costs full requests but never a wrong answer.
func (c *Cache) Import(data []byte, seal CacheSeal) (dropped int, err error) {
	if seal.mac == nil {
		return 0, errors.New("github: import ETag cache: no seal (NewCacheSeal)")
	}
	entries, err := readCacheFile(data)
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		want, err := seal.sum(e)
		if err != nil || !hmac.Equal(e.MAC, want) {
			dropped++
			continue
		}
		h := e.Header
		if h == nil {
			h = http.Header{}
		}
		c.put(seal.scope+" "+e.Key, &cacheEntry{etag: e.ETag, body: e.Body, header: h})
	}
	return dropped, nil
}

// readCacheFile decodes and bounds an export.
func readCacheFile(data []byte) ([]cacheFileEntry, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("github: import ETag cache: not a gzip-compressed export: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxCacheFile+1))
	if err != nil {
		return nil, fmt.Errorf("github: import ETag cache: %w", err)
	}
	if len(raw) > maxCacheFile {
		return nil, fmt.Errorf("github: import ETag cache: larger than %d bytes once decompressed", maxCacheFile)
	}
	var f cacheFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("github: import ETag cache: %w", err)
	}
	if f.Format != cacheFileFormat {
		return nil, fmt.Errorf("github: import ETag cache: format %q, want %q (an export of another version starts cold)", f.Format, cacheFileFormat)
	}
	for i, e := range f.Entries {
		if e.Key == "" || e.ETag == "" {
			return nil, fmt.Errorf("github: import ETag cache: entry %d has no key or ETag", i)
		}
		if len(e.Body) > maxCachedBody {
			return nil, errors.New("github: import ETag cache: an entry is larger than the cache keeps")
		}
	}
	return f.Entries, nil
}

// Len is the number of responses the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
