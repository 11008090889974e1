package versions

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/testkit/engine"
)

const testImage = "docker.io/library/busybox:1.37@sha256:0000000000000000000000000000000000000000000000000000000000000000"

func TestVolumeStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	e := engine.New(t, engine.StrictExecs())
	e.ExpectExecs(`mv "$t" /cache/etags.b64`)
	store := VolumeStore{Client: e.Client(ctx), Image: testImage}
	data := []byte("\x1f\x8b gzip bytes \x00\xff")

	if err := store.Save(ctx, data); err != nil {
		t.Fatal(err)
	}
	var written string
	for _, x := range e.Graph().Execs() {
		if strings.Contains(strings.Join(x.Args, " "), "mv ") {
			written = x.Chain
			mounts := []string{}
			for _, m := range x.Mounts {
				mounts = append(mounts, m.Kind+" "+m.Path+" "+m.Cache)
			}
			if !slices.Contains(mounts, "withMountedCache /cache "+DefaultCacheVolume) || !slices.Contains(mounts, "withNewFile /in/etags.b64 ") {
				t.Errorf("write exec mounts %v", mounts)
			}
		}
	}
	if !strings.Contains(written, base64.StdEncoding.EncodeToString(data)) {
		t.Fatalf("no exec wrote the encoded cache; chain: %s", written)
	}

	// The volume's contents come back through the read exec's stdout.
	e.OnExec(engine.ExecRule{ArgsContain: "cat /cache/etags.b64", Stdout: base64.StdEncoding.EncodeToString(data)[:8] + "\n" + base64.StdEncoding.EncodeToString(data)[8:] + "\n"})
	for range 2 {
		got, err := store.Load(ctx)
		if err != nil || string(got) != string(data) {
			t.Fatalf("Load = %q, %v", got, err)
		}
	}
	reads := 0
	for _, x := range e.Graph().Execs() {
		if strings.Contains(strings.Join(x.Args, " "), "cat /cache/etags.b64") {
			reads++
		}
	}
	if reads != 2 {
		t.Errorf("%d distinct read execs for two loads, want 2 (a reused read would return a stale cache)", reads)
	}
}

func TestVolumeStoreEmptyAndBroken(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, stdout, wantErr string
	}{
		{"empty volume", "", ""},
		{"not base64", "%%%", "is not base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := engine.New(t, engine.StrictExecs())
			e.OnExec(engine.ExecRule{ArgsContain: "cat /cache/etags.b64", Stdout: tt.stdout})
			got, err := VolumeStore{Client: e.Client(ctx), Image: testImage, Volume: "custom"}.Load(ctx)
			if tt.wantErr == "" {
				if err != nil || got != nil {
					t.Fatalf("Load = %q, %v; want nothing", got, err)
				}
				if vols := e.Graph().CacheVolumes(); !slices.Contains(vols, "custom") {
					t.Errorf("cache volumes %v, want custom", vols)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
	if err := (VolumeStore{}).Save(ctx, nil); err == nil {
		t.Errorf("a store without a client saved")
	}
}

func TestCacheImageIsAPinnedPython(t *testing.T) {
	p := pins.DefaultPins()
	if got := CacheImage(p); got == "" || got != p.Python["3.13"] {
		t.Errorf("CacheImage = %q", got)
	}
	o, err := p.WithOverrides([]string{"python-3.13=mirror.example/python@sha256:" + strings.Repeat("3", 64)})
	if err != nil {
		t.Fatal(err)
	}
	if got := CacheImage(o); !strings.HasPrefix(got, "mirror.example/python@") {
		t.Errorf("CacheImage with --pin python-3.13 = %q", got)
	}
}
