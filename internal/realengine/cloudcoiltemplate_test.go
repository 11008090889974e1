//go:build realengine

package realengine

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/testkit/cookiecutter"
	"dagger/shipyard/models/genrepo"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/upstreams"
)

// localTemplatePatch is the patch made in this process from the template under root,
// bounded to its requirement's minor, for comparison with what the module exports.
func localTemplatePatch(t *testing.T, root string) string {
	t.Helper()
	current := map[string][]byte{}
	for _, p := range genrepo.TemplatePaths() {
		if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p))); err == nil {
			current[p] = b
		}
	}
	minor, ok, err := upstreams.RequirementMinor(upstreams.TemplatePyproject, current[upstreams.TemplatePyproject], "cloudcoil")
	if err != nil || !ok {
		t.Fatalf("the template's minor: %v (found %v)", err, ok)
	}
	patch, err := genrepo.TemplatePatchFor(current, genrepo.CloudcoilBound{Minor: minor})
	if err != nil {
		t.Fatal(err)
	}
	return patch
}

// The functions of the real Cloudcoil template that read only files run on a real
// engine: the template patch (model-template-patch and gen-repo --template-patch), made
// from the template as it is, which applies with git apply; the integrations of the real
// repository (which has no models/upstreams.json); and the release lines of a real
// integration as the real template renders them.
func TestCloudcoilRealTemplate(t *testing.T) {
	t.Parallel()
	root := filepath.Join(corpus.Dir(t, "cloudcoil"), "tree")

	// The template as model-versions leaves it after raising the requirement within 0.4,
	// where a fixed patch stopped applying.
	raised := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(root, "cookiecutter"), raised).CombinedOutput(); err != nil {
		t.Fatalf("copy the template: %v\n%s", err, out)
	}
	if out, err := exec.Command("chmod", "-R", "u+w", raised).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v\n%s", err, out)
	}
	pyproject := filepath.Join(raised, filepath.FromSlash(upstreams.TemplatePyproject))
	b, err := os.ReadFile(pyproject)
	if err != nil || !strings.Contains(string(b), `"cloudcoil>=0.4.0",`) {
		t.Fatalf("the real template's requirement moved (%v)", err)
	}
	if err := os.WriteFile(pyproject, []byte(strings.Replace(string(b), `"cloudcoil>=0.4.0",`, `"cloudcoil>=0.4.2",`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct{ name, source, wantReq string }{
		{"the real template", root, `"cloudcoil>=0.4.0,<0.5",`},
		{"after model-versions raised it", raised, `"cloudcoil>=0.4.2,<0.5",`},
	} {
		want := localTemplatePatch(t, c.source)
		out := t.TempDir()
		call(t, nil, "--source", c.source, "model-template-patch", "export", "--path", out)
		got, err := os.ReadFile(filepath.Join(out, genrepo.TemplatePatchFile))
		if err != nil || string(got) != want {
			t.Errorf("%s: model-template-patch exported %d bytes (%v), want the %d of the patch made from the template", c.name, len(got), err, len(want))
		}
		viaGenRepo := t.TempDir()
		call(t, nil, "--source", c.source, "gen-repo", "--template-patch", "export", "--path", viaGenRepo)
		entries, err := os.ReadDir(viaGenRepo)
		if got, _ := os.ReadFile(filepath.Join(viaGenRepo, genrepo.TemplatePatchFile)); err != nil || len(entries) != 1 || string(got) != want {
			t.Errorf("%s: gen-repo --template-patch exported %d entries (%v), want the patch alone", c.name, len(entries), err)
		}
		// It applies to a copy of that template, as a maintainer applies it.
		work := t.TempDir()
		if out, err := exec.Command("cp", "-r", filepath.Join(c.source, "cookiecutter"), work).CombinedOutput(); err != nil {
			t.Fatalf("copy: %v\n%s", err, out)
		}
		if out, err := exec.Command("chmod", "-R", "u+w", work).CombinedOutput(); err != nil {
			t.Fatalf("chmod: %v\n%s", err, out)
		}
		apply := exec.Command("git", "apply", "-p1", filepath.Join(out, genrepo.TemplatePatchFile))
		apply.Dir = work
		if out, err := apply.CombinedOutput(); err != nil {
			t.Errorf("%s: git apply: %v\n%s", c.name, err, out)
			continue
		}
		patched, err := os.ReadFile(filepath.Join(work, filepath.FromSlash(upstreams.TemplatePyproject)))
		if err != nil || !strings.Contains(string(patched), c.wantReq) || !strings.Contains(string(patched), "[project.entry-points.cloudcoil_models]") {
			t.Errorf("%s: the patched pyproject.toml lacks %s or the entry point (%v)", c.name, c.wantReq, err)
		}
	}

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
	var lines []modelenv.Line
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
