//go:build realengine

package realengine

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// registryPort is the local registry's port: the engine's settings
// (extras/engine-local-registry.json in the kit) name 10.87.0.1:5000 as a plain-HTTP
// registry, so the engine pulls from and pushes to it.
const registryPort = "5000"

// registryHost is how containers and the module reach the local registry.
const registryHost = gateway + ":" + registryPort

// baseImage is the image the fixtures build on and the signing tool builds in: an OCI
// image index in the local registry, by digest. Its linux/amd64 image is the kit's Go SDK
// image (Debian with a Go toolchain whose module proxy is the kit's), which the engine picks
// for its own platform; its linux/arm64 image is a busybox (arm64Image), for the builds the
// engine emulates.
var baseImage string

// arm64BusyboxEnv names the arm64 busybox binary .ci/realengine downloads from Debian.
const arm64BusyboxEnv = "SHIPYARD_ARM64_BUSYBOX"

// arm64Applets are what the fixtures' Dockerfiles call. The engine's emulator (Debian's
// qemu-aarch64-static) emulates only the process it starts: a program that process
// executes is an arm64 binary the kernel cannot run. So a RUN step may use only what
// busybox's shell runs in its own process (its builtins and NOFORK applets, as mkdir,
// chmod and uname are); cat is there for the entrypoint, which no build runs.
var arm64Applets = []string{"sh", "mkdir", "echo", "printf", "chmod", "cat", "uname"}

// arm64Image is a linux/arm64 image holding only Debian's static busybox at /bin/busybox,
// with arm64Applets linked to it.
func arm64Image(busybox string) (v1.Image, error) {
	bin, err := os.ReadFile(busybox)
	if err != nil {
		return nil, fmt.Errorf("the arm64 busybox (%s, downloaded by .ci/realengine): %w", arm64BusyboxEnv, err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, d := range []struct {
		name string
		mode int64
	}{{"bin/", 0o755}, {"etc/", 0o755}, {"tmp/", 0o1777}, {"usr/", 0o755}, {"usr/local/", 0o755}, {"usr/local/bin/", 0o755}} {
		if err := tw.WriteHeader(&tar.Header{Name: d.name, Mode: d.mode, Typeflag: tar.TypeDir}); err != nil {
			return nil, err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Name: "bin/busybox", Mode: 0o755, Size: int64(len(bin)), Typeflag: tar.TypeReg}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(bin); err != nil {
		return nil, err
	}
	for _, a := range arm64Applets {
		if err := tw.WriteHeader(&tar.Header{Name: "bin/" + a, Linkname: "busybox", Mode: 0o777, Typeflag: tar.TypeSymlink}); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.ConfigFile(img, &v1.ConfigFile{
		Architecture: "arm64",
		OS:           "linux",
		Config:       v1.Config{Env: []string{"PATH=/usr/local/bin:/bin"}},
	})
	if err != nil {
		return nil, err
	}
	return mutate.AppendLayers(img, layer)
}

// pushIndex pushes an OCI image index of the given images (each with the platform its
// config names) and returns it by digest.
func pushIndex(repo string, images ...v1.Image) (string, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, img := range images {
		cf, err := img.ConfigFile()
		if err != nil {
			return "", err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: cf.Platform()}})
	}
	ref, err := name.ParseReference("127.0.0.1:"+registryPort+"/"+repo+":latest", name.Insecure)
	if err != nil {
		return "", err
	}
	if err := remote.WriteIndex(ref, idx); err != nil {
		return "", fmt.Errorf("pushing %s: %w", ref, err)
	}
	d, err := idx.Digest()
	if err != nil {
		return "", err
	}
	return registryHost + "/" + repo + "@" + d.String(), nil
}

func startRegistry() (stop func(), err error) {
	l, err := net.Listen("tcp", "0.0.0.0:"+registryPort)
	if err != nil {
		return nil, err
	}
	h := ggcrregistry.New(ggcrregistry.WithReferrersSupport(true), ggcrregistry.Logger(log.New(io.Discard, "", 0)))
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return func() { _ = srv.Close() }, nil
}

// trivyStandIn replaces Trivy, whose vulnerability database cannot be downloaded here: it
// writes an empty report and an empty SARIF log where Shipyard asks for them, so the
// real engine runs the scan step's graph while the policy stays proven on the double.
const trivyStandIn = `#!/bin/sh
out=""; prev=""
for a in "$@"; do [ "$prev" = "--output" ] && out=$a; prev=$a; done
mkdir -p "$(dirname "$out")"
case "$1" in
image) printf '{"SchemaVersion":2,"ArtifactName":"stand-in","ArtifactType":"container_image","Results":[]}' > "$out" ;;
convert) printf '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"Trivy"}},"results":[]}]}' > "$out" ;;
*) echo "trivy stand-in: unexpected arguments: $*" >&2; exit 2 ;;
esac
`

// trivyImage is the base image with the stand-in at /usr/local/bin/trivy, by digest.
var trivyImage string

// pushWithFiles pushes the base image with files added in one layer (path → executable
// script) and returns it by digest.
func pushWithFiles(base v1.Image, repo string, files map[string]string) (string, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for path, content := range files {
		hdr := &tar.Header{Name: path, Mode: 0o755, Size: int64(len(content)), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return "", err
		}
		if _, err := tw.Write([]byte(content)); err != nil {
			return "", err
		}
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil })
	if err != nil {
		return "", err
	}
	img, err := mutate.AppendLayers(base, layer)
	if err != nil {
		return "", err
	}
	return pushImage(img, repo)
}

func pushImage(img v1.Image, repo string) (string, error) {
	ref, err := name.ParseReference("127.0.0.1:"+registryPort+"/"+repo+":latest", name.Insecure)
	if err != nil {
		return "", err
	}
	if err := remote.Write(ref, img); err != nil {
		return "", fmt.Errorf("pushing %s: %w", ref, err)
	}
	d, err := img.Digest()
	if err != nil {
		return "", err
	}
	return registryHost + "/" + repo + "@" + d.String(), nil
}

// pushBaseImage pushes baseImage, the index of the kit's Go SDK image (an OCI layout) and
// the arm64 busybox image, to the local registry.
func pushBaseImage() (string, error) {
	cache := os.Getenv("ENGINE_CACHE")
	if cache == "" {
		return "", errors.New("ENGINE_CACHE is unset (start.sh of the engine kit exports it)")
	}
	busybox := os.Getenv(arm64BusyboxEnv)
	if busybox == "" {
		return "", fmt.Errorf("%s is unset: the linux/arm64 base image needs Debian's arm64 busybox-static binary; run .ci/realengine, which downloads it", arm64BusyboxEnv)
	}
	arm64, err := arm64Image(busybox)
	if err != nil {
		return "", err
	}
	idx, err := layout.ImageIndexFromPath(filepath.Join(cache, "sdk"))
	if err != nil {
		return "", fmt.Errorf("the kit's Go SDK image: %w", err)
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) == 0 {
		return "", fmt.Errorf("the kit's Go SDK image has no manifest: %v", err)
	}
	img, err := idx.Image(m.Manifests[0].Digest)
	if err != nil {
		return "", err
	}
	base, err := pushIndex("shipyard-test/base", img, arm64)
	if err != nil {
		return "", err
	}
	if trivyImage, err = pushWithFiles(img, "shipyard-test/trivy-stand-in", map[string]string{"usr/local/bin/trivy": trivyStandIn}); err != nil {
		return "", fmt.Errorf("the Trivy stand-in: %w", err)
	}
	return base, nil
}
