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
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// registryPort is the local registry's port: the engine's settings
// (extras/engine-local-registry.json in the kit) name 10.87.0.1:5000 as a plain-HTTP
// registry, so the engine pulls from and pushes to it.
const registryPort = "5000"

// registryHost is how containers and the module reach the local registry.
const registryHost = gateway + ":" + registryPort

// baseImage is the image the fixtures build on and the signing tool builds in: the kit's
// Go SDK image (Debian with a Go toolchain whose module proxy is the kit's), pushed to the
// local registry, by digest.
var baseImage string

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

// pushBaseImage pushes the kit's Go SDK image (an OCI layout) to the local registry.
func pushBaseImage() (string, error) {
	cache := os.Getenv("ENGINE_CACHE")
	if cache == "" {
		return "", errors.New("ENGINE_CACHE is unset (start.sh of the engine kit exports it)")
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
	base, err := pushImage(img, "shipyard-test/go-sdk")
	if err != nil {
		return "", err
	}
	if trivyImage, err = pushWithFiles(img, "shipyard-test/trivy-stand-in", map[string]string{"usr/local/bin/trivy": trivyStandIn}); err != nil {
		return "", fmt.Errorf("the Trivy stand-in: %w", err)
	}
	return base, nil
}
