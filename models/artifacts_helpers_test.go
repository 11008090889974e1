package models

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io/fs"
	"sort"
	"strings"
	"testing"
	"time"
)

const (
	fixturePkgDir  = "cloudcoil/models/example"
	fixtureVersion = "1.31.5.0"
	fixtureDist    = "cloudcoil_models_example-" + fixtureVersion
)

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// zipBytes writes a zip archive; a name ending in "@symlink" is stored as a
// symlink under the name without the suffix.
func zipBytes(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range sortedKeys(files) {
		fh := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Unix(1_700_000_000, 0)}
		fh.SetMode(0o644)
		if target, ok := strings.CutSuffix(name, "@symlink"); ok {
			fh.Name = target
			fh.SetMode(fs.ModeSymlink | 0o777)
		}
		w, err := zw.CreateHeader(fh)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// storedZipBytes writes a zip archive without compression, so its contents
// appear literally in the bytes.
func storedZipBytes(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range sortedKeys(files) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tarEntry is one tar header and its content.
type tarEntry struct {
	hdr  tar.Header
	data string
}

func tarGzBytes(t testing.TB, entries []tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	if _, err := gz.Write(tarEntriesBytes(t, entries)); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func tarEntriesBytes(t testing.TB, entries []tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		hdr := e.hdr
		if hdr.Typeflag == 0 {
			hdr.Typeflag = tar.TypeReg
		}
		if hdr.Typeflag == tar.TypeReg && hdr.Size == 0 {
			hdr.Size = int64(len(e.data))
		}
		if hdr.Mode == 0 && hdr.Typeflag != tar.TypeXGlobalHeader {
			hdr.Mode = 0o644
		}
		if err := tw.WriteHeader(&hdr); err != nil {
			t.Fatal(err)
		}
		if e.data != "" {
			if _, err := tw.Write([]byte(e.data)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func fileEntries(files map[string]string) []tarEntry {
	var entries []tarEntry
	for _, name := range sortedKeys(files) {
		entries = append(entries, tarEntry{hdr: tar.Header{Name: name}, data: files[name]})
	}
	return entries
}

func sdistBytes(t testing.TB, files map[string]string) []byte {
	t.Helper()
	return tarGzBytes(t, fileEntries(files))
}

// tarBytes is an uncompressed tar of files.
func tarBytes(t testing.TB, files map[string]string) []byte {
	t.Helper()
	return tarEntriesBytes(t, fileEntries(files))
}

func metadata(name, version string) string {
	return "Metadata-Version: 2.4\nName: " + name + "\nVersion: " + version +
		"\nRequires-Dist: cloudcoil<0.8,>=0.7.1\n\n# Example models\n\nVersion: in the body is prose\n"
}

// distributions lays out what a build backend would put in the wheel and the
// sdist of a checkout, as file maps to archive.
func distributions(checkout map[string]string) (wheel, sdist map[string]string) {
	wheel, sdist = map[string]string{}, map[string]string{}
	for p, content := range checkout {
		if rel, ok := strings.CutPrefix(p, fixturePkgDir+"/"); ok {
			wheel[fixturePkgDir+"/"+rel] = content
		}
		sdist[fixtureDist+"/"+p] = content
	}
	wheel[fixtureDist+".dist-info/METADATA"] = metadata("cloudcoil.models.example", fixtureVersion)
	wheel[fixtureDist+".dist-info/WHEEL"] = "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
	wheel[fixtureDist+".dist-info/RECORD"] = ""
	sdist[fixtureDist+"/PKG-INFO"] = metadata("cloudcoil.models.example", fixtureVersion)
	return wheel, sdist
}

func readWheelBytes(t testing.TB, b []byte) Artifact {
	t.Helper()
	a, err := ReadWheel(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("ReadWheel: %v", err)
	}
	return a
}

func readSdistBytes(t testing.TB, b []byte) Artifact {
	t.Helper()
	a, err := ReadSdist(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("ReadSdist: %v", err)
	}
	return a
}
