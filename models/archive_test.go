package models

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"errors"
	"io/fs"
	"strings"
	"testing"
)

func TestReadWheel(t *testing.T) {
	wheel, _ := distributions(checkoutFiles())
	a := readWheelBytes(t, zipBytes(t, wheel))
	if a.Kind != "wheel" || a.Root != fixtureDist+".dist-info" || a.Name != "cloudcoil.models.example" || a.Version != fixtureVersion {
		t.Errorf("identity = %q %q %q %q", a.Kind, a.Root, a.Name, a.Version)
	}
	if len(a.Files) != len(wheel) {
		t.Errorf("%d files, want %d", len(a.Files), len(wheel))
	}
	model := fixturePkgDir + "/apps/v1.py"
	if got := a.Files[model]; got.Size != int64(len(wheel[model])) || len(got.SHA256) != 64 {
		t.Errorf("%s = %+v", model, got)
	}
}

func TestReadWheelRejects(t *testing.T) {
	meta := map[string]string{fixtureDist + ".dist-info/METADATA": metadata("x", "1.0.0.0")}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range meta {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	small := ArchiveLimits{MaxFiles: 3, MaxFileSize: 1 << 10, MaxTotalSize: 1500}
	tests := []struct {
		name    string
		limits  ArchiveLimits
		files   map[string]string
		raw     []byte
		wantErr string
	}{
		{name: "zip slip", files: with(map[string]string{"../evil.py": "x"}), wantErr: "unsafe path"},
		{name: "nested zip slip", files: with(map[string]string{"pkg/../../evil.py": "x"}), wantErr: "unsafe path"},
		{name: "absolute path", files: with(map[string]string{"/etc/evil.py": "x"}), wantErr: "unsafe path"},
		{name: "backslash path", files: with(map[string]string{`pkg\..\..\evil.py`: "x"}), wantErr: "unsafe path"},
		{name: "dot element", files: with(map[string]string{"pkg/./a.py": "x"}), wantErr: "unsafe path"},
		{name: "symlink", files: with(map[string]string{"pkg/link.py@symlink": "/etc/passwd"}), wantErr: "unsupported file type"},
		{name: "file over the limit", limits: small, files: with(map[string]string{"pkg/big.py": strings.Repeat("x", 1<<10+1)}), wantErr: "file limit"},
		{name: "total over the limit", limits: small, files: with(map[string]string{"pkg/a.py": strings.Repeat("x", 1000), "pkg/b.py": strings.Repeat("y", 1000)}), wantErr: "total limit"},
		{name: "too many files", limits: small, files: with(map[string]string{"a": "", "b": "", "c": ""}), wantErr: "more than 3 files"},
		{name: "no metadata", files: map[string]string{"pkg/a.py": "x"}, wantErr: "want one *.dist-info/METADATA, found 0"},
		{name: "two metadata", files: with(map[string]string{"other-1.dist-info/METADATA": metadata("x", "1")}), wantErr: "found 2"},
		{name: "metadata without version", files: map[string]string{"x-1.dist-info/METADATA": "Metadata-Version: 2.4\nName: x\n"}, wantErr: "version header"},
		{name: "metadata with two versions", files: map[string]string{"x-1.dist-info/METADATA": "Name: x\nVersion: 1\nVersion: 2\n"}, wantErr: "version header"},
		{name: "metadata header garbage", files: map[string]string{"x-1.dist-info/METADATA": "Name: x\nnot a header\n"}, wantErr: "malformed header"},
		{name: "not a zip", raw: []byte("PK\x03\x04 truncated"), wantErr: "read wheel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := tt.raw
			if raw == nil {
				raw = zipBytes(t, tt.files)
			}
			limits := tt.limits
			if limits == (ArchiveLimits{}) {
				limits = DefaultArchiveLimits()
			}
			_, err := limits.ReadWheel(bytes.NewReader(raw), int64(len(raw)))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want …%s…", err, tt.wantErr)
			}
		})
	}
}

func TestReadWheelDuplicateEntry(t *testing.T) {
	raw := zipBytes(t, map[string]string{"pkg/a.py": "1", "pkg/b.py": "2", "x-1.dist-info/METADATA": metadata("x", "1")})
	// Rename b.py to a.py in both the local and the central headers.
	raw = bytes.ReplaceAll(raw, []byte("pkg/b.py"), []byte("pkg/a.py"))
	if _, err := ReadWheel(bytes.NewReader(raw), int64(len(raw))); err == nil || !strings.Contains(err.Error(), "duplicate entry") {
		t.Fatalf("err = %v, want duplicate entry", err)
	}
}

func TestReadWheelCorruptContent(t *testing.T) {
	raw := storedZipBytes(t, map[string]string{"x-1.dist-info/METADATA": metadata("x", "1"), "pkg/a.py": "class Widget: ...\n"})
	// Stored data is literal: changing one byte breaks only the CRC-32.
	raw[bytes.Index(raw, []byte("class Widget"))] = 'C'
	if _, err := ReadWheel(bytes.NewReader(raw), int64(len(raw))); !errors.Is(err, zip.ErrChecksum) {
		t.Fatalf("err = %v, want a checksum error", err)
	}
}

func TestReadSdist(t *testing.T) {
	_, sdist := distributions(checkoutFiles())
	var entries []tarEntry
	entries = append(entries,
		tarEntry{hdr: tar.Header{Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"comment": "x"}}},
		tarEntry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: "./" + fixtureDist + "/", Mode: 0o755}},
	)
	for _, name := range sortedKeys(sdist) {
		entries = append(entries, tarEntry{hdr: tar.Header{Name: "./" + name}, data: sdist[name]})
	}
	a := readSdistBytes(t, tarGzBytes(t, entries))
	if a.Kind != "sdist" || a.Root != fixtureDist || a.Name != "cloudcoil.models.example" || a.Version != fixtureVersion {
		t.Errorf("identity = %q %q %q %q", a.Kind, a.Root, a.Name, a.Version)
	}
	if len(a.Files) != len(sdist) {
		t.Errorf("%d files, want %d", len(a.Files), len(sdist))
	}
	if _, ok := a.Files[fixtureDist+"/"+fixturePkgDir+"/apps/v1.py"]; !ok {
		t.Error("model missing from the file set")
	}
}

func TestReadSdistRejects(t *testing.T) {
	pkgInfo := tarEntry{hdr: tar.Header{Name: "x-1/PKG-INFO"}, data: metadata("x", "1")}
	reg := func(name, data string) tarEntry { return tarEntry{hdr: tar.Header{Name: name}, data: data} }
	small := ArchiveLimits{MaxFiles: 10, MaxFileSize: 1 << 10, MaxTotalSize: 1 << 20}
	tests := []struct {
		name    string
		limits  ArchiveLimits
		entries []tarEntry
		raw     []byte
		wantErr string
	}{
		{name: "tar slip", entries: []tarEntry{pkgInfo, reg("x-1/../../evil", "x")}, wantErr: "unsafe path"},
		{name: "absolute path", entries: []tarEntry{pkgInfo, reg("/x-1/evil", "x")}, wantErr: "unsafe path"},
		{name: "symlink", entries: []tarEntry{pkgInfo, {hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: "x-1/link", Linkname: "/etc/passwd"}}}, wantErr: "unsupported entry type"},
		{name: "hard link", entries: []tarEntry{pkgInfo, {hdr: tar.Header{Typeflag: tar.TypeLink, Name: "x-1/link", Linkname: "x-1/PKG-INFO"}}}, wantErr: "unsupported entry type"},
		{name: "device", entries: []tarEntry{pkgInfo, {hdr: tar.Header{Typeflag: tar.TypeChar, Name: "x-1/dev"}}}, wantErr: "unsupported entry type"},
		{name: "two top-level directories", entries: []tarEntry{pkgInfo, reg("y-1/a.py", "x")}, wantErr: "outside the top-level directory"},
		{name: "top-level file", entries: []tarEntry{reg("PKG-INFO", metadata("x", "1"))}, wantErr: "at the top level"},
		{name: "no PKG-INFO", entries: []tarEntry{reg("x-1/a.py", "x")}, wantErr: "no top-level <name>-<version>/PKG-INFO"},
		{name: "nested PKG-INFO only", entries: []tarEntry{reg("x-1/x.egg-info/PKG-INFO", metadata("x", "1"))}, wantErr: "no top-level"},
		{name: "empty archive", entries: nil, wantErr: "no top-level"},
		{name: "duplicate entry", entries: []tarEntry{pkgInfo, reg("x-1/a.py", "1"), reg("x-1/a.py", "2")}, wantErr: "duplicate entry"},
		{name: "file over the limit", limits: small, entries: []tarEntry{pkgInfo, reg("x-1/big", strings.Repeat("x", 1<<10+1))}, wantErr: "file limit"},
		{name: "metadata without name", entries: []tarEntry{reg("x-1/PKG-INFO", "Version: 1\n")}, wantErr: "name header"},
		{name: "not gzip", raw: []byte("plain text"), wantErr: "read sdist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := tt.raw
			if raw == nil {
				raw = tarGzBytes(t, tt.entries)
			}
			limits := tt.limits
			if limits == (ArchiveLimits{}) {
				limits = DefaultArchiveLimits()
			}
			_, err := limits.ReadSdist(bytes.NewReader(raw))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want …%s…", err, tt.wantErr)
			}
		})
	}
}

func TestArchivePath(t *testing.T) {
	tests := []struct {
		name, clean string
		dir         bool
		ok          bool
	}{
		{"a/b.py", "a/b.py", false, true},
		{"a/", "a", true, true},
		{"", "", false, false},
		{"/", "", false, false},
		{"a//b", "", false, false},
		{"a/../b", "", false, false},
		{"./a", "", false, false},
		{"a\\b", "", false, false},
		{"a\x00b", "", false, false},
		{"C:/x", "C:/x", false, true}, // a plain relative name on every OS we extract on
	}
	for _, tt := range tests {
		clean, dir, err := archivePath(tt.name)
		if (err == nil) != tt.ok || clean != tt.clean || dir != tt.dir {
			t.Errorf("archivePath(%q) = %q, %v, %v", tt.name, clean, dir, err)
		}
		if err != nil && !errors.Is(err, errUnsafePath) {
			t.Errorf("archivePath(%q): error %v is not errUnsafePath", tt.name, err)
		}
	}
}

// checkArtifactInvariants holds for anything a reader accepts.
func checkArtifactInvariants(t *testing.T, a Artifact, limits ArchiveLimits) {
	t.Helper()
	if a.Root == "" || a.Name == "" || a.Version == "" {
		t.Fatalf("accepted artifact without identity: %+v", a)
	}
	if len(a.Files) > limits.MaxFiles {
		t.Fatalf("%d files over the limit", len(a.Files))
	}
	var total int64
	for p, f := range a.Files {
		if !fs.ValidPath(p) || strings.ContainsAny(p, "\\\x00") {
			t.Fatalf("accepted unsafe path %q", p)
		}
		if a.Kind == "sdist" && !strings.HasPrefix(p, a.Root+"/") {
			t.Fatalf("sdist path %q outside %q", p, a.Root)
		}
		if f.Size > limits.MaxFileSize {
			t.Fatalf("%s: %d bytes over the limit", p, f.Size)
		}
		total += f.Size
	}
	if total > limits.MaxTotalSize {
		t.Fatalf("%d bytes over the total limit", total)
	}
}

var fuzzLimits = ArchiveLimits{MaxFiles: 64, MaxFileSize: 64 << 10, MaxTotalSize: 256 << 10}

func FuzzReadWheel(f *testing.F) {
	wheel, _ := distributions(checkoutFiles())
	f.Add(zipBytes(f, wheel))
	f.Add(zipBytes(f, map[string]string{"x-1.dist-info/METADATA": "Name: x\nVersion: 1\n", "../a": ""}))
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Add(storedZipBytes(f, map[string]string{"x-1.dist-info/METADATA": "Name: x\nVersion: 1\n", "pkg/a.py": "x = 1\n"}))
	f.Fuzz(func(t *testing.T, raw []byte) {
		a, err := fuzzLimits.ReadWheel(bytes.NewReader(raw), int64(len(raw)))
		if err != nil {
			return
		}
		checkArtifactInvariants(t, a, fuzzLimits)
		if _, ok := a.Files[a.Root+"/METADATA"]; !ok || !strings.HasSuffix(a.Root, ".dist-info") {
			t.Fatalf("root %q has no METADATA", a.Root)
		}
	})
}

func FuzzReadSdist(f *testing.F) {
	_, sdist := distributions(checkoutFiles())
	f.Add(sdistBytes(f, sdist))
	f.Add(tarGzBytes(f, []tarEntry{{hdr: tar.Header{Name: "x-1/PKG-INFO"}, data: "Name: x\nVersion: 1\n"}, {hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: "x-1/l", Linkname: "/"}}}))
	// A small uncompressed seed: the fuzzer spends its time mutating headers
	// rather than minimising kilobytes of fixture.
	f.Add(tarBytes(f, map[string]string{"x-1/PKG-INFO": "Name: x\nVersion: 1\n", "x-1/a.py": "x = 1\n"}))
	f.Fuzz(func(t *testing.T, raw []byte) {
		// The tar layer is fuzzed directly too: mutations of gzip data rarely
		// get past the checksum to reach it.
		for _, read := range []func() (Artifact, error){
			func() (Artifact, error) { return fuzzLimits.ReadSdist(bytes.NewReader(raw)) },
			func() (Artifact, error) { return fuzzLimits.readTar(bytes.NewReader(raw)) },
		} {
			a, err := read()
			if err != nil {
				continue
			}
			checkArtifactInvariants(t, a, fuzzLimits)
			if _, ok := a.Files[a.Root+"/PKG-INFO"]; !ok {
				t.Fatalf("root %q has no PKG-INFO", a.Root)
			}
		}
	})
}

// TestReadDistributions: both archives in one call; a broken one is named by its file
// name, and the other's kind is never mistaken for it.
func TestReadDistributions(t *testing.T) {
	wheelFiles, sdistFiles := distributions(checkoutFiles())
	wheel, sdist := zipBytes(t, wheelFiles), sdistBytes(t, sdistFiles)
	const wheelName, sdistName = "example-1.0-py3-none-any.whl", "example-1.0.tar.gz"
	tests := []struct {
		name         string
		wheel, sdist []byte
		wantErr      string
	}{
		{"both read", wheel, sdist, ""},
		{"a broken wheel is named", []byte("not a zip"), sdist, wheelName + ": read wheel: "},
		{"a broken sdist is named", wheel, []byte("not gzip"), sdistName + ": read sdist: "},
		{"the archives swapped", sdist, wheel, wheelName + ": read wheel: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, s, err := ReadDistributions(wheelName, tt.wheel, sdistName, tt.sdist)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to start %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.Kind != "wheel" || s.Kind != "sdist" || w.Version != fixtureVersion || s.Version != fixtureVersion {
				t.Errorf("read %s %s and %s %s", w.Kind, w.Version, s.Kind, s.Version)
			}
		})
	}
}
