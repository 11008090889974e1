package trust

import (
	"strings"
	"testing"

	"dagger/shipyard/internal/pins"
)

func TestCacheVolumeName(t *testing.T) {
	def := pins.DefaultPins()
	own, err := def.WithOverrides([]string{"trivy=mirror.example/trivy:own@sha256:9999999999999999999999999999999999999999999999999999999999999999"})
	if err != nil {
		t.Fatal(err)
	}
	extra, err := def.WithPythonImages([]string{"3.14=mirror.example/python:3.14@sha256:9999999999999999999999999999999999999999999999999999999999999999"})
	if err != nil {
		t.Fatal(err)
	}
	base := Release.CacheVolumeName("v", def)
	tests := []struct {
		name      string
		level     Level
		pins      pins.Pins
		wantEqual bool
	}{
		{"same level, same pins", Release, pins.DefaultPins(), true},
		{"other level", Untrusted, def, false},
		{"an overriding --pin", Release, own, false},
		{"an added Python image", Release, extra, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.level.CacheVolumeName("v", tt.pins)
			if (got == base) != tt.wantEqual {
				t.Errorf("%q vs %q: equal=%t, want %t", got, base, got == base, tt.wantEqual)
			}
			if !strings.HasPrefix(got, "v-"+tt.level.String()+"-") {
				t.Errorf("%q does not name its level", got)
			}
		})
	}
}

func TestOf(t *testing.T) {
	tests := []struct {
		fn      string
		want    Level
		wantErr bool
	}{
		{"validate-models", Untrusted, false},
		{"ci", Untrusted, false},
		{"update-repos", Release, false},
		{"scan-published", Release, false},
		{"verify", Release, false},
		{"model-versions", Release, false},
		{"a-new-function", Untrusted, true},
	}
	for _, tt := range tests {
		got, err := Of(tt.fn)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("Of(%q) = %v, %v; want %v (error %t)", tt.fn, got, err, tt.want, tt.wantErr)
		}
	}
}
