package models

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// Artifact is what the artifact checks need from a built distribution: its
// files and the name and version its core metadata declares.
type Artifact struct {
	// Kind is "wheel" or "sdist".
	Kind string
	// Root is the wheel's "<name>-<version>.dist-info" directory or the
	// sdist's single top-level "<name>-<version>" directory.
	Root string
	// Name and Version are the Name and Version headers of the core metadata
	// (the wheel's METADATA, the sdist's top-level PKG-INFO).
	Name, Version string
	// Files maps each regular file's path in the archive (for an sdist,
	// including Root) to its digest and size.
	Files map[string]ArtifactFile
	// EntryPoints is the wheel's <Root>/entry_points.txt, nil when it has none.
	EntryPoints []byte
}

// ArtifactFile identifies the bytes of one archived file.
type ArtifactFile struct {
	SHA256 string // lowercase hex
	Size   int64
}

// ArchiveLimits bound what reading an archive may consume, so a hostile or
// broken artifact fails the check instead of exhausting the runner.
type ArchiveLimits struct {
	MaxFiles     int   // regular files in the archive
	MaxFileSize  int64 // uncompressed bytes of one file
	MaxTotalSize int64 // uncompressed bytes of all files
}

// DefaultArchiveLimits fit the largest model package (Kubernetes: a few
// thousand files, single modules of a few MiB) with a wide margin.
func DefaultArchiveLimits() ArchiveLimits {
	return ArchiveLimits{
		MaxFiles:     100_000,
		MaxFileSize:  256 << 20,
		MaxTotalSize: 2 << 30,
	}
}

// ReadWheel reads a wheel with DefaultArchiveLimits.
func ReadWheel(r io.ReaderAt, size int64) (Artifact, error) {
	return DefaultArchiveLimits().ReadWheel(r, size)
}

// ReadSdist reads a gzip-compressed tar sdist with DefaultArchiveLimits.
func ReadSdist(r io.Reader) (Artifact, error) {
	return DefaultArchiveLimits().ReadSdist(r)
}

// ReadDistributions reads a built wheel and sdist, each given by its file name (which
// its error names) and bytes, with DefaultArchiveLimits: what the artifact checks need
// from both archives, in one call.
func ReadDistributions(wheelName string, wheel []byte, sdistName string, sdist []byte) (Artifact, Artifact, error) {
	w, err := ReadWheel(bytes.NewReader(wheel), int64(len(wheel)))
	if err != nil {
		return Artifact{}, Artifact{}, fmt.Errorf("%s: %w", wheelName, err)
	}
	s, err := ReadSdist(bytes.NewReader(sdist))
	if err != nil {
		return Artifact{}, Artifact{}, fmt.Errorf("%s: %w", sdistName, err)
	}
	return w, s, nil
}

var errUnsafePath = errors.New("unsafe path")

// archivePath validates an entry name: relative, slash-separated, without
// "." or ".." elements, backslashes or NUL, so no entry can name a file
// outside the archive's own tree (zip slip) or alias another entry.
func archivePath(name string) (clean string, dir bool, err error) {
	dir = strings.HasSuffix(name, "/")
	clean = strings.TrimSuffix(name, "/")
	if !fs.ValidPath(clean) || clean == "." || strings.ContainsAny(clean, "\\\x00") {
		return "", false, fmt.Errorf("%w %q", errUnsafePath, name)
	}
	return clean, dir, nil
}

// collector accumulates files under the limits.
type collector struct {
	limits   ArchiveLimits
	total    int64
	files    map[string]ArtifactFile
	metadata map[string][]byte // kept contents of metadata candidates
	keep     func(string) bool
}

func newCollector(l ArchiveLimits, keep func(string) bool) *collector {
	return &collector{limits: l, files: map[string]ArtifactFile{}, metadata: map[string][]byte{}, keep: keep}
}

func (c *collector) add(name string, declared int64, r io.Reader) error {
	if _, dup := c.files[name]; dup {
		// Installers disagree on which duplicate wins; refuse the ambiguity.
		return fmt.Errorf("duplicate entry %q", name)
	}
	if len(c.files) >= c.limits.MaxFiles {
		return fmt.Errorf("more than %d files", c.limits.MaxFiles)
	}
	if declared > c.limits.MaxFileSize {
		return fmt.Errorf("%s: %d bytes exceeds the %d-byte file limit", name, declared, c.limits.MaxFileSize)
	}
	h := sha256.New()
	var kept bytes.Buffer
	w := io.Writer(h)
	if c.keep(name) {
		w = io.MultiWriter(h, &kept)
	}
	// Declared sizes can lie; the limit is enforced on the bytes themselves.
	n, err := io.Copy(w, io.LimitReader(r, c.limits.MaxFileSize+1))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if n > c.limits.MaxFileSize {
		return fmt.Errorf("%s: exceeds the %d-byte file limit", name, c.limits.MaxFileSize)
	}
	c.total += n
	if c.total > c.limits.MaxTotalSize {
		return fmt.Errorf("archive exceeds the %d-byte total limit", c.limits.MaxTotalSize)
	}
	c.files[name] = ArtifactFile{SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}
	if c.keep(name) {
		c.metadata[name] = kept.Bytes()
	}
	return nil
}

var (
	wheelMetadataPath    = regexp.MustCompile(`^[^/]+\.dist-info/METADATA$`)
	wheelEntryPointsPath = regexp.MustCompile(`^[^/]+\.dist-info/entry_points\.txt$`)
)

// ReadWheel reads a wheel (a zip archive) of size bytes.
func (l ArchiveLimits) ReadWheel(r io.ReaderAt, size int64) (Artifact, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return Artifact{}, fmt.Errorf("read wheel: %w", err)
	}
	c := newCollector(l, func(name string) bool {
		return wheelMetadataPath.MatchString(name) || wheelEntryPointsPath.MatchString(name)
	})
	for _, f := range zr.File {
		if err := readZipEntry(c, f); err != nil {
			return Artifact{}, fmt.Errorf("read wheel: %w", err)
		}
	}
	var metas []string
	for name := range c.metadata {
		if wheelMetadataPath.MatchString(name) {
			metas = append(metas, name)
		}
	}
	if len(metas) != 1 {
		return Artifact{}, fmt.Errorf("read wheel: want one *.dist-info/METADATA, found %d", len(metas))
	}
	a := Artifact{Kind: "wheel", Root: path.Dir(metas[0]), Files: c.files}
	a.EntryPoints = c.metadata[a.Root+"/entry_points.txt"]
	if a.Name, a.Version, err = parseCoreMetadata(c.metadata[metas[0]]); err != nil {
		return Artifact{}, fmt.Errorf("read wheel: %s: %w", metas[0], err)
	}
	return a, nil
}

func readZipEntry(c *collector, f *zip.File) error {
	name, dir, err := archivePath(f.Name)
	if err != nil {
		return err
	}
	mode := f.Mode()
	if dir || mode.IsDir() {
		return nil
	}
	if !mode.IsRegular() {
		return fmt.Errorf("%s: unsupported file type %s", name, mode.Type())
	}
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer rc.Close()
	declared := int64(f.UncompressedSize64)
	if f.UncompressedSize64 > 1<<62 {
		declared = 1 << 62
	}
	// Reading to the end also verifies the entry's CRC-32.
	return c.add(name, declared, rc)
}

// ReadSdist reads a gzip-compressed tar sdist. All entries must sit under one
// top-level directory, whose PKG-INFO gives the name and version.
func (l ArchiveLimits) ReadSdist(r io.Reader) (Artifact, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return Artifact{}, fmt.Errorf("read sdist: %w", err)
	}
	defer zr.Close()
	a, err := l.readTar(zr)
	if err != nil {
		return Artifact{}, fmt.Errorf("read sdist: %w", err)
	}
	return a, nil
}

// readTar reads the uncompressed tar stream of an sdist.
func (l ArchiveLimits) readTar(r io.Reader) (Artifact, error) {
	tr := tar.NewReader(r)
	root := ""
	c := newCollector(l, func(name string) bool { return root != "" && name == root+"/PKG-INFO" })
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Artifact{}, fmt.Errorf("%w", err)
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue // pax metadata for the whole archive, not a file
		}
		// "./x" is a common spelling of "x" in tarballs.
		raw := strings.TrimPrefix(hdr.Name, "./")
		if raw == "" {
			continue
		}
		name, _, err := archivePath(raw)
		if err != nil {
			return Artifact{}, fmt.Errorf("%w", err)
		}
		top, _, _ := strings.Cut(name, "/")
		if root == "" {
			root = top
		} else if top != root {
			return Artifact{}, fmt.Errorf("%q is outside the top-level directory %q", name, root)
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			continue
		case tar.TypeReg: // the reader reports legacy TypeRegA as TypeReg
		default:
			// Links could point outside the tree or alias checked files.
			return Artifact{}, fmt.Errorf("%s: unsupported entry type %q", name, hdr.Typeflag)
		}
		if name == root {
			return Artifact{}, fmt.Errorf("file %q at the top level", name)
		}
		if err := c.add(name, hdr.Size, tr); err != nil {
			return Artifact{}, err
		}
	}
	meta, ok := c.metadata[root+"/PKG-INFO"]
	if root == "" || !ok {
		return Artifact{}, errors.New("no top-level <name>-<version>/PKG-INFO")
	}
	a := Artifact{Kind: "sdist", Root: root, Files: c.files}
	var err error
	if a.Name, a.Version, err = parseCoreMetadata(meta); err != nil {
		return Artifact{}, fmt.Errorf("%s/PKG-INFO: %w", root, err)
	}
	return a, nil
}

// parseCoreMetadata reads Name and Version from core metadata headers (the
// part before the first empty line). Either header missing, empty or repeated
// is an error: the identity of the artifact must be unambiguous.
func parseCoreMetadata(data []byte) (name, version string, err error) {
	found := map[string][]string{}
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		text, _ := lineEnding(line)
		if len(text) == 0 {
			break
		}
		if text[0] == ' ' || text[0] == '\t' {
			continue // folded continuation of the previous header
		}
		k, v, ok := bytes.Cut(text, []byte(":"))
		if !ok {
			return "", "", fmt.Errorf("malformed header line %q", text)
		}
		key := strings.ToLower(string(bytes.TrimSpace(k)))
		if key == "name" || key == "version" {
			found[key] = append(found[key], string(bytes.TrimSpace(v)))
		}
	}
	for _, key := range []string{"name", "version"} {
		if vals := found[key]; len(vals) != 1 || vals[0] == "" {
			return "", "", fmt.Errorf("want one non-empty %s header, found %q", key, vals)
		}
	}
	return found["name"][0], found["version"][0], nil
}
