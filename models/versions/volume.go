package versions

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/internal/pins"
)

// DefaultCacheVolume is the Dagger cache volume the module keeps the ETag cache in.
const DefaultCacheVolume = "shipyard-model-versions-github-etags"

// cacheImagePython is the Python minor whose pinned image reads and writes the cache volume:
// the image is pinned for CI already, so it is usually present on the engine.
const cacheImagePython = "3.13"

// CacheImage is the image of the cache volume's small containers, among the pins.
func CacheImage(p pins.Pins) string { return p.Python[cacheImagePython] }

// VolumeStore keeps the ETag cache in a Dagger cache volume, which outlives the module's
// function calls on the same engine: a laptop's engine, a persistent runner, or a remote
// engine shared by CI. A fresh engine (an ephemeral CI runner without a shared engine)
// starts with an empty volume, and the run is simply cold.
//
// A module cannot read a volume directly, so each access is a small container with the
// volume mounted. The bytes travel as base64 text: a file written with withNewFile going
// in, an exec's stdout coming out.
type VolumeStore struct {
	Client *dagger.Client
	// Volume is the cache volume's key (DefaultCacheVolume when empty).
	Volume string
	// Image is any image with a POSIX shell, cat, cp, mv and mktemp, pinned by digest.
	Image string
}

const (
	volumeMount = "/cache"
	volumeFile  = volumeMount + "/etags.b64"
	inputFile   = "/in/etags.b64"
)

func (v VolumeStore) container() (*dagger.Container, error) {
	if v.Client == nil || v.Image == "" {
		return nil, errors.New("ETag cache volume: no Dagger client or image")
	}
	key := v.Volume
	if key == "" {
		key = DefaultCacheVolume
	}
	return v.Client.Container().From(v.Image).WithMountedCache(volumeMount, v.Client.CacheVolume(key)), nil
}

// Load reads the cache from the volume; an empty volume is an empty cache.
func (v VolumeStore) Load(ctx context.Context) ([]byte, error) {
	c, err := v.container()
	if err != nil {
		return nil, err
	}
	// Dagger reuses an exec whose inputs are unchanged, and a volume's contents are not an
	// input: without a value unique to this read, every run after the first would get the
	// first run's answer. This is the one deliberately non-deterministic step of the flow.
	out, err := c.WithEnvVariable("SHIPYARD_CACHE_READ", rand.Text()).
		WithExec([]string{"sh", "-c", "cat " + volumeFile + " 2>/dev/null || true"}).
		Stdout(ctx)
	if err != nil {
		return nil, fmt.Errorf("ETag cache volume: read: %w", err)
	}
	text := strings.Join(strings.Fields(out), "")
	if text == "" {
		return nil, nil
	}
	data, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil, fmt.Errorf("ETag cache volume: %s is not base64: %w", volumeFile, err)
	}
	return data, nil
}

// Save replaces the cache in the volume. The new file is written beside the old one and
// renamed over it, so a concurrent run reads either cache whole, never half of one. The
// same bytes as last time make the same exec, which Dagger may skip; the volume then keeps
// what it holds, at worst a cache another run wrote since, which costs full answers and
// never a wrong one.
func (v VolumeStore) Save(ctx context.Context, data []byte) error {
	c, err := v.container()
	if err != nil {
		return err
	}
	script := `t=$(mktemp ` + volumeMount + `/.etags.XXXXXX) && cp ` + inputFile + ` "$t" && mv "$t" ` + volumeFile
	_, err = c.WithNewFile(inputFile, base64.StdEncoding.EncodeToString(data)).
		WithExec([]string{"sh", "-c", script}).
		Sync(ctx)
	if err != nil {
		return fmt.Errorf("ETag cache volume: write: %w", err)
	}
	return nil
}
