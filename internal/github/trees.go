package github

import (
	"crypto/sha1" // Git names objects by SHA-1
	"encoding/hex"
	"fmt"
)

// TreeFile is one file of a tree to write, with any bytes.
type TreeFile struct {
	Path string
	// Mode is ModeFile, ModeExecutable or ModeSymlink; "" (a caller that cannot read modes)
	// keeps the mode the base tree has at the path, and is ModeFile for a new path.
	Mode    string
	Content []byte
}

// TreeEntry is one entry of an existing tree: a blob (a file or symlink), a subtree or a
// submodule (type "commit").
type TreeEntry struct {
	Path, Mode, Type, SHA string
}

// BlobSHA is Git's object ID of content as a blob, the SHA GitHub gives it.
func BlobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// TreeBatches bound the requests WriteTree sends.
type TreeBatches struct {
	// MaxBytes bounds the file content one tree request carries, as JSON text (default
	// 4 MiB): a request that size finishes well within the client's per-attempt timeout.
	MaxBytes int
	// MaxEntries bounds the entries of one tree request (default 1000).
	MaxEntries int
	// Blobs is how many blobs are written at once (default 4): GitHub asks integrations
	// to keep content-creating requests few and its secondary rate limit counts them.
	Blobs int
}

// DefaultTreeBatches returns WriteTree's bounds unless the caller gives others.
func DefaultTreeBatches() TreeBatches {
	return TreeBatches{MaxBytes: 4 << 20, MaxEntries: 1000, Blobs: 4}
}

// WithDefaults fills each bound left at zero with DefaultTreeBatches'.
func (lim TreeBatches) WithDefaults() TreeBatches {
	d := DefaultTreeBatches()
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = d.MaxBytes
	}
	if lim.MaxEntries <= 0 {
		lim.MaxEntries = d.MaxEntries
	}
	if lim.Blobs <= 0 {
		lim.Blobs = d.Blobs
	}
	return lim
}

// Git's modes of the files a tree holds.
const (
	ModeFile       = "100644"
	ModeExecutable = "100755"
	ModeSymlink    = "120000" // the blob's content is the link's target
)
