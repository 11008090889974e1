//go:build realengine

package realengine

import (
	"encoding/json"
	"slices"
	"testing"

	"dagger/shipyard/models/upstreams/upstreamstest"
)

// The listing functions that feed the Cloudcoil wrappers' matrices run on a real engine:
// they read only the source. (Generation, validation, model-ci and update-repos run
// cookiecutter and uv from PyPI, which cannot be reached here; the engine double proves
// those graphs.)
func TestModelMatrices(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	upstreamstest.WriteGenerator(t, src)

	var all []string
	out := call(t, nil, "--source", src, "model-integrations")
	if err := json.Unmarshal([]byte(out), &all); err != nil || len(all) == 0 {
		t.Fatalf("model-integrations printed %q (%v)", out, err)
	}
	want := upstreamstest.Names()
	slices.Sort(want)
	if got := slices.Sorted(slices.Values(all)); !slices.Equal(got, want) {
		t.Errorf("model-integrations = %v, want %v", got, want)
	}

	var changed []string
	out = call(t, nil, "--source", src, "validate-models", "--list", "--changed", "models/"+want[0]+"/cookiecutter.yaml")
	if err := json.Unmarshal([]byte(out), &changed); err != nil || !slices.Equal(changed, want[:1]) {
		t.Errorf("validate-models --list = %q (%v), want [%s]", out, err, want[0])
	}
}
