//go:build realengine

package realengine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/cookiecutter"
	"dagger/shipyard/internal/testkit/corpus"
	"dagger/shipyard/models/modelrelease"
)

// The functions of the real Cloudcoil template that read only files run on a real
// engine: the template patch (model-template-patch and gen-repo --template-patch), the integrations of the real repository (which has no
// models/upstreams.json) and the release lines of a real integration as the real and the
// patched template render them. (gen-repo, model-ci and check-artifacts install from
// PyPI, which cannot be reached here; the engine double proves those graphs.)
func TestCloudcoilRealTemplate(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	call(t, nil, "model-template-patch", "export", "--path", out)
	got, err := os.ReadFile(filepath.Join(out, "cloudcoil-template.patch"))
	if err != nil || string(got) != modelrelease.TemplatePatch() {
		t.Errorf("model-template-patch exported %d bytes (%v), want the embedded patch", len(got), err)
	}
	viaGenRepo := t.TempDir()
	call(t, nil, "gen-repo", "--template-patch", "export", "--path", viaGenRepo)
	entries, err := os.ReadDir(viaGenRepo)
	if got, _ := os.ReadFile(filepath.Join(viaGenRepo, "cloudcoil-template.patch")); err != nil || len(entries) != 1 || string(got) != modelrelease.TemplatePatch() {
		t.Errorf("gen-repo --template-patch exported %d entries (%v), want the embedded patch alone", len(entries), err)
	}

	root := filepath.Join(corpus.Dir(t, "cloudcoil"), "tree")
	var names []string
	list := call(t, nil, "--source", root, "validate-models", "--list")
	if err := json.Unmarshal([]byte(list), &names); err != nil || len(names) != 12 {
		t.Errorf("validate-models --list on the real repository = %q (%v), want its 12 integrations", list, err)
	}

	// kubernetes has four lines; render it and ask model-lines.
	_, files, err := cookiecutter.Integration(root, "kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	for p, c := range files {
		target := filepath.Join(repo, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var lines []modelrelease.Line
	printed := call(t, nil, "--source", repo, "model-lines")
	if err := json.Unmarshal([]byte(printed), &lines); err != nil {
		t.Fatalf("model-lines printed %q: %v", printed, err)
	}
	var upstreams []string
	for _, l := range lines {
		upstreams = append(upstreams, l.Upstream)
	}
	if want := []string{"1.29.13", "1.30.9", "1.31.5", "1.32.1"}; !slices.Equal(upstreams, want) || !lines[3].Newest {
		t.Errorf("model-lines of the real kubernetes = %s, want %v", strings.TrimSpace(printed), want)
	}
}
