package registry

import (
	"archive/tar"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// writeLayout writes an OCI image layout directory holding imgs.
func writeLayout(t *testing.T, imgs ...v1.Image) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "layout")
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	for _, img := range imgs {
		if err := lp.AppendImage(img); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// tarDir packs dir into a tar file, entry names prefixed with prefix ("" as
// BuildKit writes them, "./" as tar -C dir . does), plus extra files.
func tarDir(t *testing.T, dir, prefix string, extra map[string][]byte) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "image.tar")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		h.Name = prefix + filepath.ToSlash(rel)
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(tw, src)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for n, b := range extra {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

func writeDockerArchive(t *testing.T, img v1.Image) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "docker.tar")
	tag, err := name.NewTag("registry.example/org/img:dev")
	if err != nil {
		t.Fatal(err)
	}
	if err := tarball.WriteToFile(out, tag, img); err != nil {
		t.Fatal(err)
	}
	return out
}

func configName(t *testing.T, img v1.Image) v1.Hash {
	t.Helper()
	h, err := img.ConfigName()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestOpenImageReadsLayoutsAndDockerArchives(t *testing.T) {
	img := randomImage(t)
	want := digestOf(t, img)
	dir := writeLayout(t, img)
	tests := []struct {
		name string
		repo string
		path string
		want ImageFormat
		// sameDigest: the manifest is pushed byte for byte.
		sameDigest bool
	}{
		{"OCI layout tar", "oci-tar", tarDir(t, dir, "", nil), FormatOCILayoutTar, true},
		{"OCI layout tar with ./ names", "oci-tar-dot", tarDir(t, dir, "./", nil), FormatOCILayoutTar, true},
		{"OCI layout tar with a docker manifest.json too", "oci-tar-both", tarDir(t, dir, "", map[string][]byte{"manifest.json": []byte(`[]`)}), FormatOCILayoutTar, true},
		{"OCI layout directory", "oci-dir", dir, FormatOCILayoutDir, true},
		{"docker archive", "docker", writeDockerArchive(t, img), FormatDockerArchive, false},
	}
	reg := newTestRegistry(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, format, err := OpenImage(tt.path)
			if err != nil {
				t.Fatalf("OpenImage: %v", err)
			}
			if format != tt.want {
				t.Errorf("format = %s, want %s", format, tt.want)
			}
			if tt.sameDigest && digestOf(t, got) != want {
				t.Errorf("digest = %s, want %s", digestOf(t, got), want)
			}
			if configName(t, got) != configName(t, img) {
				t.Error("config differs from the original image")
			}

			repo := reg.repo(tt.repo)
			pushedDigest, err := PushPathByDigest(t.Context(), repo, tt.path, reg.auth, reg.opts()...)
			if err != nil {
				t.Fatalf("PushPathByDigest: %v", err)
			}
			if pushedDigest != digestOf(t, got) || !reg.has(t, repo, pushedDigest) {
				t.Errorf("pushed %s; image digest %s", pushedDigest, digestOf(t, got))
			}
			if tags := reg.state(t, repo); len(tags) != 0 {
				t.Errorf("tags appeared: %v", tags)
			}
		})
	}
}

func TestOpenImageRefusesWhatItCannotPushFaithfully(t *testing.T) {
	idx, err := random.Index(256, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	multi := filepath.Join(t.TempDir(), "multi")
	lp, err := layout.Write(multi, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := lp.AppendIndex(idx); err != nil {
		t.Fatal(err)
	}

	corruptManifest := writeLayout(t, randomImage(t))
	m, err := os.ReadFile(filepath.Join(corruptManifest, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	im, err := v1.ParseIndexManifest(strings.NewReader(string(m)))
	if err != nil {
		t.Fatal(err)
	}
	flipByte(t, filepath.Join(corruptManifest, "blobs", "sha256", im.Manifests[0].Digest.Hex))

	notTar := filepath.Join(t.TempDir(), "not.tar")
	if err := os.WriteFile(notTar, []byte("this is not a tar archive, just some bytes that go on for a while "+strings.Repeat("x", 600)), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, wantMsg string
	}{
		{"multi-platform index", tarDir(t, multi, "", nil), "multi-platform"},
		{"multi-platform layout directory", multi, "multi-platform"},
		{"two images", tarDir(t, writeLayout(t, randomImage(t), randomImage(t)), "", nil), "exactly one image"},
		{"empty layout", tarDir(t, writeLayout(t), "", nil), "exactly one image"},
		{"manifest does not match its digest", tarDir(t, corruptManifest, "", nil), "digest"},
		{"neither layout nor archive", tarDir(t, t.TempDir(), "", map[string][]byte{"hello.txt": []byte("hi")}), "neither index.json"},
		{"not a tar", notTar, "tar"},
		{"missing file", filepath.Join(t.TempDir(), "absent.tar"), "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := OpenImage(tt.path)
			if err == nil {
				t.Fatal("OpenImage accepted it")
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not say %q", err, tt.wantMsg)
			}
		})
	}
}

func TestACorruptLayerIsNeverPushed(t *testing.T) {
	img := randomImage(t)
	dir := writeLayout(t, img)
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	h, err := layers[0].Digest()
	if err != nil {
		t.Fatal(err)
	}
	flipByte(t, filepath.Join(dir, "blobs", "sha256", h.Hex))
	path := tarDir(t, dir, "", nil)

	reg := newTestRegistry(t)
	repo := reg.repo("img")
	_, err = PushPathByDigest(t.Context(), repo, path, reg.auth, reg.opts()...)
	if err == nil {
		t.Fatal("pushed an image with a corrupt layer")
	}
	// The layer is checked while it streams, so either our digest check or the registry's
	// (which verifies the upload's digest) refuses it first; both stop the push.
	if !strings.Contains(err.Error(), "content has digest") && !strings.Contains(err.Error(), "DIGEST_INVALID") {
		t.Errorf("error %q is neither digest check's", err)
	}
	if reg.has(t, repo, digestOf(t, img)) {
		t.Error("the manifest was pushed")
	}
}

// flipByte changes one byte of a file, keeping its size.
func flipByte(t *testing.T, p string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
