package ci

import (
	"context"
	"errors"
	"testing"
)

func TestIsShipyardTree(t *testing.T) {
	tests := []struct {
		name        string
		manifest    string
		supplychain bool
		want        bool
	}{
		{"Shipyard's repository", `{"name": "shipyard", "engineVersion": "v0.21.8", "sdk": {"source": "go"}}`, true, true},
		{"a project with Shipyard as a toolchain", `{"name": "tesk-core", "toolchains": [{"name": "shipyard", "source": "github.com/o/shipyard@0123"}]}`, false, false},
		{"a project whose own module is named shipyard, without the signing tool", `{"name": "shipyard"}`, false, false},
		{"a project without dagger.json", ``, true, false},
		{"an unreadable manifest", `{`, true, false},
	}
	for _, tt := range tests {
		if got := IsShipyardTree([]byte(tt.manifest), tt.supplychain); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The tesk-core fixture, with or without Shipyard installed as a toolchain, is accepted;
// Shipyard's own tree is refused with the way out.
func TestCheckCallerTree(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name    string
		changes map[string]string
		refused bool
	}{
		{"tesk-core", nil, false},
		{"tesk-core with Shipyard as a toolchain", map[string]string{
			"dagger.json":                            `{"name": "tesk-core", "engineVersion": "v0.21.8", "toolchains": [{"name": "shipyard", "source": "toolchains/shipyard"}]}`,
			"toolchains/shipyard/dagger.json":        `{"name": "shipyard", "engineVersion": "v0.21.8", "sdk": {"source": "go"}}`,
			"toolchains/shipyard/supplychain/go.mod": "module example.com/supplychain\n",
		}, false},
		{"Shipyard's own tree", map[string]string{
			"dagger.json":        `{"name": "shipyard", "engineVersion": "v0.21.8", "sdk": {"source": "go"}}`,
			"supplychain/go.mod": "module dagger/shipyard/supplychain\n",
		}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := newPipeline(t, tt.changes)
			err := CheckCallerTree(ctx, p.Source)
			if tt.refused != errors.Is(err, ErrShipyardTree) || (!tt.refused && err != nil) {
				t.Fatalf("err = %v, refused want %v", err, tt.refused)
			}
		})
	}
}
