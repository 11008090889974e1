package registry

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// ImageFormat names the on-disk form an image was read from.
type ImageFormat string

const (
	// FormatOCILayoutTar is an OCI image layout in a tar file (index.json,
	// blobs/sha256/…), as Dagger's Container.AsTarball and Export write it.
	// The manifest bytes are pushed unchanged, so the digest is the one the
	// producer computed.
	FormatOCILayoutTar ImageFormat = "oci-layout-tar"
	// FormatOCILayoutDir is an OCI image layout directory.
	FormatOCILayoutDir ImageFormat = "oci-layout-dir"
	// FormatDockerArchive is a docker save tar with only manifest.json. Its
	// manifest is rebuilt by go-containerregistry, so the pushed digest is
	// not the one Docker shows for the image.
	FormatDockerArchive ImageFormat = "docker-archive"
)

// maxMetadataSize bounds index.json, manifests and configs read into memory.
const maxMetadataSize = 4 << 20

// OpenImage reads a single-platform image from a file or directory: an OCI
// image layout (tar or directory; preferred when a tar has both index.json
// and manifest.json) or a docker-archive tar. Blobs are read lazily from the
// file and checked against their digests while they are read.
func OpenImage(p string) (v1.Image, ImageFormat, error) {
	img, format, err := openImage(p)
	if err != nil {
		return nil, "", fmt.Errorf("open image %s: %w", p, err)
	}
	return img, format, nil
}

func openImage(p string) (v1.Image, ImageFormat, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, "", err
	}
	if info.IsDir() {
		img, err := openLayoutDir(p)
		return img, FormatOCILayoutDir, err
	}
	names, err := tarNames(p)
	if err != nil {
		return nil, "", err
	}
	switch {
	case names["index.json"]:
		img, err := openLayoutTar(p)
		return img, FormatOCILayoutTar, err
	case names["manifest.json"]:
		img, err := tarball.ImageFromPath(p, nil)
		if err != nil {
			return nil, "", fmt.Errorf("docker archive: %w", err)
		}
		return img, FormatDockerArchive, nil
	default:
		return nil, "", errors.New("tar has neither index.json (OCI image layout) nor manifest.json (docker archive)")
	}
}

// pickImage returns the one image manifest an index.json lists.
func pickImage(index *v1.IndexManifest) (v1.Descriptor, error) {
	if len(index.Manifests) != 1 {
		return v1.Descriptor{}, fmt.Errorf("index.json lists %d manifests; exactly one image is supported", len(index.Manifests))
	}
	d := index.Manifests[0]
	switch {
	case d.MediaType.IsIndex():
		return v1.Descriptor{}, fmt.Errorf("index.json points at an image index %s (multi-platform); only single-platform images are supported", d.Digest)
	case !d.MediaType.IsImage():
		return v1.Descriptor{}, fmt.Errorf("index.json points at %s, not an image manifest", d.MediaType)
	}
	return d, nil
}

func openLayoutDir(dir string) (v1.Image, error) {
	lp, err := layout.FromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("OCI layout: %w", err)
	}
	ii, err := lp.ImageIndex()
	if err != nil {
		return nil, fmt.Errorf("OCI layout: %w", err)
	}
	index, err := ii.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("OCI layout: %w", err)
	}
	d, err := pickImage(index)
	if err != nil {
		return nil, err
	}
	return ii.Image(d.Digest)
}

// tarNames lists the normalised entry names of a tar file.
func tarNames(p string) (map[string]bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names := map[string]bool{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names, nil
		}
		if err != nil {
			return nil, fmt.Errorf("not a readable tar: %w", err)
		}
		names[cleanName(h.Name)] = true
	}
}

func cleanName(n string) string {
	return strings.TrimPrefix(path.Clean("/"+n), "/")
}

func blobName(h v1.Hash) string { return "blobs/" + h.Algorithm + "/" + h.Hex }

// openTarEntry returns a reader of one regular file in the tar and the file
// to close. Scanning is cheap: tar skips entry bodies with Seek on a file.
func openTarEntry(p, entry string) (io.Reader, *os.File, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, nil, err
	}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			f.Close()
			return nil, nil, fmt.Errorf("%s not found in the tar", entry)
		}
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("read tar: %w", err)
		}
		if cleanName(h.Name) == entry && h.Typeflag == tar.TypeReg {
			return tr, f, nil
		}
	}
}

func readTarEntry(p, entry string) ([]byte, error) {
	r, f, err := openTarEntry(p, entry)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxMetadataSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", entry, err)
	}
	if len(b) > maxMetadataSize {
		return nil, fmt.Errorf("%s is larger than %d bytes", entry, maxMetadataSize)
	}
	return b, nil
}

// readTarBlob reads a small blob and checks it against its digest.
func readTarBlob(p string, h v1.Hash) ([]byte, error) {
	b, err := readTarEntry(p, blobName(h))
	if err != nil {
		return nil, err
	}
	got, _, err := v1.SHA256(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if got != h {
		return nil, fmt.Errorf("blob %s has digest %s", h, got)
	}
	return b, nil
}

// layoutTarImage is an image in an OCI layout tar, read in place.
type layoutTarImage struct {
	path     string
	desc     v1.Descriptor
	raw      []byte
	manifest *v1.Manifest
}

var _ partial.CompressedImageCore = (*layoutTarImage)(nil)

func openLayoutTar(p string) (v1.Image, error) {
	b, err := readTarEntry(p, "index.json")
	if err != nil {
		return nil, err
	}
	index, err := v1.ParseIndexManifest(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("index.json: %w", err)
	}
	d, err := pickImage(index)
	if err != nil {
		return nil, err
	}
	if d.Digest.Algorithm != "sha256" {
		return nil, fmt.Errorf("manifest digest algorithm %s is not supported", d.Digest.Algorithm)
	}
	raw, err := readTarBlob(p, d.Digest)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	m, err := v1.ParseManifest(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", d.Digest, err)
	}
	return partial.CompressedToImage(&layoutTarImage{path: p, desc: d, raw: raw, manifest: m})
}

func (i *layoutTarImage) MediaType() (types.MediaType, error) { return i.desc.MediaType, nil }
func (i *layoutTarImage) RawManifest() ([]byte, error)        { return i.raw, nil }
func (i *layoutTarImage) Manifest() (*v1.Manifest, error)     { return i.manifest.DeepCopy(), nil }

func (i *layoutTarImage) RawConfigFile() ([]byte, error) {
	return readTarBlob(i.path, i.manifest.Config.Digest)
}

func (i *layoutTarImage) LayerByDigest(h v1.Hash) (partial.CompressedLayer, error) {
	if h == i.manifest.Config.Digest {
		return &tarBlob{path: i.path, desc: i.manifest.Config}, nil
	}
	for _, d := range i.manifest.Layers {
		if d.Digest == h {
			return &tarBlob{path: i.path, desc: d}, nil
		}
	}
	return nil, fmt.Errorf("layer %s is not in the image", h)
}

// tarBlob is one blob of a layout tar.
type tarBlob struct {
	path string
	desc v1.Descriptor
}

func (b *tarBlob) Digest() (v1.Hash, error)            { return b.desc.Digest, nil }
func (b *tarBlob) Size() (int64, error)                { return b.desc.Size, nil }
func (b *tarBlob) MediaType() (types.MediaType, error) { return b.desc.MediaType, nil }

func (b *tarBlob) Compressed() (io.ReadCloser, error) {
	if b.desc.Digest.Algorithm != "sha256" {
		return nil, fmt.Errorf("blob digest algorithm %s is not supported", b.desc.Digest.Algorithm)
	}
	r, f, err := openTarEntry(b.path, blobName(b.desc.Digest))
	if err != nil {
		return nil, err
	}
	return &verifyingReader{r: r, c: f, h: sha256.New(), want: b.desc.Digest, size: b.desc.Size}, nil
}

// verifyingReader fails at the end of a blob whose content does not match its
// descriptor, so a corrupt tar is never pushed under a digest it does not have.
type verifyingReader struct {
	r    io.Reader
	c    io.Closer
	h    hash.Hash
	want v1.Hash
	size int64
	n    int64
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	n, err := v.r.Read(p)
	v.h.Write(p[:n])
	v.n += int64(n)
	if err == io.EOF {
		if v.n != v.size {
			return n, fmt.Errorf("blob %s: read %d bytes, descriptor says %d", v.want, v.n, v.size)
		}
		if got := hex.EncodeToString(v.h.Sum(nil)); got != v.want.Hex {
			return n, fmt.Errorf("blob %s: content has digest sha256:%s", v.want, got)
		}
	}
	return n, err
}

func (v *verifyingReader) Close() error { return v.c.Close() }
