//go:build realengine

package realengine

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
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

// registryWrites records every request to the local registry that is not a read, as
// "METHOD path", so a test can tell that a re-run wrote nothing.
var registryWrites struct {
	sync.Mutex
	list []string
}

func countWrites(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			registryWrites.Lock()
			registryWrites.list = append(registryWrites.list, r.Method+" "+r.URL.Path)
			registryWrites.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

// writesUnder returns the registry writes so far to repositories under org.
func writesUnder(org string) []string {
	registryWrites.Lock()
	defer registryWrites.Unlock()
	var out []string
	for _, w := range registryWrites.list {
		if strings.Contains(w, " /v2/"+org+"/") {
			out = append(out, w)
		}
	}
	return out
}

func startRegistry() (stop func(), err error) {
	l, err := net.Listen("tcp", "0.0.0.0:"+registryPort)
	if err != nil {
		return nil, err
	}
	h := ggcrregistry.New(ggcrregistry.WithReferrersSupport(true), ggcrregistry.Logger(log.New(io.Discard, "", 0)))
	srv := &http.Server{Handler: countWrites(h), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return func() { _ = srv.Close() }, nil
}

// Trivy in the suite is the real one: .ci/realengine builds Trivy (SHIPYARD_TRIVY) from the
// Go module proxy and writes the suite's own vulnerability databases with trivy-db
// (SHIPYARD_TRIVY_DB holds one Trivy cache directory per advisory set). Each set becomes an
// image of the base image with the binary and that database, whose environment keeps Trivy
// offline: database updates off, the database read from the image, no version check.
const (
	trivyEnv   = "SHIPYARD_TRIVY"
	trivyDBEnv = "SHIPYARD_TRIVY_DB"
	// trivyCache is where the image holds the database. Shipyard mounts its own cache
	// volume on Trivy's default cache directory, which would hide a database put there.
	trivyCache = "/opt/trivy-cache"
)

var (
	// trivyImage is real Trivy with the "pass" advisories: an unfixed CRITICAL and a fixable
	// LOW in the base image's Debian packages, which the scan policy lets through.
	trivyImage string
	// trivyGateImage is real Trivy with the "gate" advisories: also a fixable CRITICAL (tar)
	// and a fixable HIGH (gzip), which the scan policy blocks.
	trivyGateImage string
)

// The suite's advisories (internal/realengine/trivydb), as Trivy reports them.
const (
	vulnFixableCritical = "SHIPYARD-2026-0001"
	vulnFixableHigh     = "SHIPYARD-2026-0002"
	vulnUnfixedCritical = "SHIPYARD-2026-0003"
	vulnFixableLow      = "SHIPYARD-2026-0004"
)

// pushTrivyImages pushes trivyImage and trivyGateImage, built on base.
func pushTrivyImages(base v1.Image) error {
	bin, dbs := os.Getenv(trivyEnv), os.Getenv(trivyDBEnv)
	if bin == "" || dbs == "" {
		return fmt.Errorf("%s or %s is unset: .ci/realengine builds Trivy and writes its databases", trivyEnv, trivyDBEnv)
	}
	binLayer, err := fileLayer(map[string]string{"usr/local/bin/trivy": bin})
	if err != nil {
		return fmt.Errorf("the Trivy binary: %w", err)
	}
	for set, out := range map[string]*string{"pass": &trivyImage, "gate": &trivyGateImage} {
		dir := filepath.Join(dbs, set, "db")
		dbLayer, err := fileLayer(map[string]string{
			strings.TrimPrefix(trivyCache, "/") + "/db/trivy.db":      filepath.Join(dir, "trivy.db"),
			strings.TrimPrefix(trivyCache, "/") + "/db/metadata.json": filepath.Join(dir, "metadata.json"),
		})
		if err != nil {
			return fmt.Errorf("the %s database: %w", set, err)
		}
		img, err := mutate.AppendLayers(base, binLayer, dbLayer)
		if err != nil {
			return err
		}
		cf, err := img.ConfigFile()
		if err != nil {
			return err
		}
		cf = cf.DeepCopy()
		cf.Config.Env = append(cf.Config.Env, "TRIVY_CACHE_DIR="+trivyCache, "TRIVY_SKIP_DB_UPDATE=true",
			"TRIVY_SKIP_JAVA_DB_UPDATE=true", "TRIVY_SKIP_VERSION_CHECK=true", "TRIVY_DISABLE_TELEMETRY=true",
			"TRIVY_NO_PROGRESS=true")
		if img, err = mutate.ConfigFile(img, cf); err != nil {
			return err
		}
		if *out, err = pushImage(img, "shipyard-test/trivy-"+set); err != nil {
			return fmt.Errorf("Trivy with the %s database: %w", set, err)
		}
	}
	return nil
}

// fileLayer is one layer of host files (path in the image → file on the host), each
// world-readable and executable, with their directories.
func fileLayer(files map[string]string) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		for d := filepath.Dir(p); d != "." && !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	sortedDirs := make([]string, 0, len(dirs))
	for d := range dirs {
		sortedDirs = append(sortedDirs, d)
	}
	sort.Strings(sortedDirs)
	for _, d := range sortedDirs {
		if err := tw.WriteHeader(&tar.Header{Name: d + "/", Mode: 0o755, Typeflag: tar.TypeDir}); err != nil {
			return nil, err
		}
	}
	for _, p := range paths {
		b, err := os.ReadFile(files[p])
		if err != nil {
			return nil, err
		}
		if err := tw.WriteHeader(&tar.Header{Name: p, Mode: 0o755, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(b); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	// Trivy's binary is large: the fastest compression keeps the suite's start short.
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil },
		tarball.WithCompressionLevel(gzip.BestSpeed))
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
	if err := pushTrivyImages(img); err != nil {
		return "", fmt.Errorf("real Trivy: %w", err)
	}
	return base, nil
}
