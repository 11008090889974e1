package githubclient

import (
	"bytes"
	"compress/gzip"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"dagger/shipyard/internal/tokenmac"
)

// cacheFileFormat names the exported layout; Import refuses any other, so a changed layout
// starts cold instead of misreading an old file. Format 2 kept each answer in clear with a
// MAC; 3 encrypts it.
const cacheFileFormat = "shipyard-github-etag-cache/3"

// CacheSeal binds an exported cache to the token that read it: the keys that encrypt and
// authenticate each stored answer and the scope the client's cache keys carry in memory,
// all derived from the token, and the name of the token's export among other tokens'
// (Name). It holds no token and formats as "[redacted]".
type CacheSeal struct {
	aead     cipher.AEAD
	nonceKey []byte
	scope    string
	name     string
}

func (CacheSeal) String() string { return "[redacted]" }

func (CacheSeal) GoString() string { return "[redacted]" }

// NewCacheSeal derives the seal of a token. An anonymous client has no secret to seal
// with, so its cache cannot be trusted across runs: an empty token is an error.
func NewCacheSeal(token string) (CacheSeal, error) {
	if token == "" {
		return CacheSeal{}, errors.New("github: an ETag cache is sealed with the token, and there is none")
	}
	enc, err := hkdf.Key(sha256.New, []byte(token), nil, "shipyard github etag cache encryption", 32)
	if err != nil {
		return CacheSeal{}, fmt.Errorf("github: deriving the ETag cache key: %w", err)
	}
	nonceKey, err := hkdf.Key(sha256.New, []byte(token), nil, "shipyard github etag cache nonce", 32)
	if err != nil {
		return CacheSeal{}, fmt.Errorf("github: deriving the ETag cache key: %w", err)
	}
	block, err := aes.NewCipher(enc)
	if err != nil {
		return CacheSeal{}, fmt.Errorf("github: the ETag cache cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return CacheSeal{}, fmt.Errorf("github: the ETag cache cipher: %w", err)
	}
	return CacheSeal{aead: aead, nonceKey: nonceKey, scope: cacheScope(token), name: tokenmac.Of(token, "shipyard github etag cache name", 16)}, nil
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
	return tokenmac.Of(token, "shipyard github etag cache scope", 8)
}

// seal encrypts and authenticates one entry, all of it (the request's path, the ETag, the
// headers, the body), with AES-256-GCM: whoever lacks the token can neither read a stored
// answer nor change one unseen. The nonce is a MAC of the plaintext (as in SIV), so the
// same entry seals to the same bytes and two different entries never share a nonce.
func (s CacheSeal) seal(e cacheFileEntry) ([]byte, error) {
	plain, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, s.nonceKey)
	m.Write(plain)
	nonce := m.Sum(nil)[:s.aead.NonceSize()]
	return s.aead.Seal(nonce, nonce, plain, []byte(cacheFileFormat)), nil
}

// open is the entry sealed in b; an error when b was not sealed with this seal's token
// (or was changed since).
func (s CacheSeal) open(b []byte) (cacheFileEntry, error) {
	n := s.aead.NonceSize()
	if len(b) < n+s.aead.Overhead() {
		return cacheFileEntry{}, errors.New("too short")
	}
	plain, err := s.aead.Open(nil, b[:n], b[n:], []byte(cacheFileFormat))
	if err != nil {
		return cacheFileEntry{}, err
	}
	var e cacheFileEntry
	if err := json.Unmarshal(plain, &e); err != nil {
		return cacheFileEntry{}, err
	}
	if e.Key == "" || e.ETag == "" || len(e.Body) > maxCachedBody {
		return cacheFileEntry{}, errors.New("no key or ETag, or larger than the cache keeps")
	}
	return e, nil
}

// maxCacheFile bounds an imported cache once decompressed, well above the cache's own bound
// of entries times maxCachedBody that a real export stays under.
const maxCacheFile = 256 << 20

// cacheFile is an export: each entry sealed (CacheSeal.seal), nothing else in clear.
type cacheFile struct {
	Format  string   `json:"format"`
	Entries [][]byte `json:"entries"`
}

// cacheFileEntry is one stored answer, before it is sealed.
type cacheFileEntry struct {
	Key    string      `json:"key"`
	ETag   string      `json:"etag"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

// Export returns the entries of the seal's token as gzip-compressed JSON, each sealed
// (encrypted and authenticated with keys derived from the token), its key without the
// token's scope. Entries are sorted by key, sealing is deterministic and the gzip header
// carries no time, so the same cache exports the same bytes (and a Dagger step writing
// them stays cached when nothing changed).
func (c *Cache) Export(seal CacheSeal) ([]byte, error) {
	if seal.aead == nil {
		return nil, errors.New("github: export ETag cache: no seal (NewCacheSeal)")
	}
	c.mu.Lock()
	entries := make([]cacheFileEntry, 0, len(c.entries))
	for k, e := range c.entries {
		key, ok := strings.CutPrefix(k, seal.scope+" ")
		if !ok {
			continue // another token's answer
		}
		h := e.header.Clone()
		h.Del("Set-Cookie") // GitHub's API sets none; never persist one if it did
		entries = append(entries, cacheFileEntry{Key: key, ETag: e.etag, Header: h, Body: e.body})
	}
	c.mu.Unlock()
	sort.Slice(entries, func(i, j int) bool { return entries[i].Key < entries[j].Key })
	f := cacheFile{Format: cacheFileFormat, Entries: make([][]byte, len(entries))}
	for i, e := range entries {
		sealed, err := seal.seal(e)
		if err != nil {
			return nil, fmt.Errorf("github: export ETag cache: %w", err)
		}
		f.Entries[i] = sealed
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
// the same key; past the cache's size the usual eviction applies. An entry that does not
// open (changed by someone without the token, or sealed with another token) is dropped,
// so its request goes out unconditionally; dropped counts them. Data that is not an export
// of this format is an error and leaves the cache unchanged: the caller then starts cold,
// which costs full requests but never a wrong answer.
func (c *Cache) Import(data []byte, seal CacheSeal) (dropped int, err error) {
	if seal.aead == nil {
		return 0, errors.New("github: import ETag cache: no seal (NewCacheSeal)")
	}
	sealed, err := readCacheFile(data)
	if err != nil {
		return 0, err
	}
	for _, b := range sealed {
		e, err := seal.open(b)
		if err != nil {
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

// readCacheFile decodes and bounds an export: its sealed entries.
func readCacheFile(data []byte) ([][]byte, error) {
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
	// The format alone first: an older export's entries do not decode as this one's.
	var head struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("github: import ETag cache: %w", err)
	}
	if head.Format != cacheFileFormat {
		return nil, fmt.Errorf("github: import ETag cache: format %q, want %q (an export of another version starts cold)", head.Format, cacheFileFormat)
	}
	var f cacheFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("github: import ETag cache: %w", err)
	}
	return f.Entries, nil
}

// Len is the number of responses the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
