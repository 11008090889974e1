package genrepo_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"dagger/shipyard/internal/testkit/cookiecutter"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models"
	"dagger/shipyard/models/genrepo"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/modelrelease"
	"dagger/shipyard/models/modeltest"
	"dagger/shipyard/models/upstreams"
)

type releaseTriggers struct {
	On struct {
		Release struct {
			Types []string `yaml:"types"`
		} `yaml:"release"`
	} `yaml:"on"`
}

// The patch applies to the real template, and each real integration rendered from the
// patched template has Shipyard's workflows with its own lines, one release flow, a
// publish on `released` only, and the entry point Cloudcoil finds its models by.
func TestTemplatePatchOnTheRealIntegrations(t *testing.T) {
	patched := modeltest.PatchedCloudcoil(t)
	original := modeltest.CloudcoilTree(t)
	examples := filepath.Join("..", "..", "examples", "github-actions", "cloudcoil")
	for _, name := range modeltest.RealIntegrations(t, original) {
		t.Run(name, func(t *testing.T) {
			_, before, err := cookiecutter.Integration(original, name)
			if err != nil {
				t.Fatal(err)
			}
			_, files, err := cookiecutter.Integration(patched, name)
			if err != nil {
				t.Fatal(err)
			}
			for _, gone := range []string{modelenv.UpdateReleasesWorkflow, ".github/workflows/test_pypi_publish.yml"} {
				if _, ok := files[gone]; ok {
					t.Errorf("%s survived the patch: two release flows", gone)
				}
			}
			// The lines and prefix are the ones the original template rendered.
			want, err := modelenv.ParseLineConfig(modelenv.UpdateReleasesWorkflow, []byte(before[modelenv.UpdateReleasesWorkflow]))
			if err != nil {
				t.Fatal(err)
			}
			got, err := modelenv.ParseLineConfig(modelenv.ShipyardReleaseWorkflow, []byte(files[modelenv.ShipyardReleaseWorkflow]))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Versions, want.Versions) || got.Prefix != want.Prefix {
				t.Errorf("patched lines %+v, original %+v", got, want)
			}
			for _, v := range got.Versions {
				if _, err := modelenv.SelectUpstream([]byte(files[modelenv.PyprojectPath]), got, v); err != nil {
					t.Errorf("select %s: %v", v, err)
				}
			}
			// The wrappers render as they are: the examples, word for word.
			for file, example := range map[string]string{".github/workflows/ci.yml": "model-ci.yml", ".github/workflows/pypi_publish.yml": "pypi_publish.yml"} {
				data, err := os.ReadFile(filepath.Join(examples, example))
				if err != nil {
					t.Fatal(err)
				}
				if strings.TrimSpace(files[file]) != strings.TrimSpace(string(data)) {
					t.Errorf("%s does not render as examples/github-actions/cloudcoil/%s", file, example)
				}
			}
			var pub releaseTriggers
			if err := yaml.Unmarshal([]byte(files[".github/workflows/pypi_publish.yml"]), &pub); err != nil || !slices.Equal(pub.On.Release.Types, []string{"released"}) {
				t.Errorf("pypi_publish.yml triggers on %v (%v), want [released]", pub.On.Release.Types, err)
			}
			for p, c := range files {
				if strings.Contains(c, "{%") || strings.Contains(c, "{{ cookiecutter") {
					t.Errorf("%s kept template syntax", p)
				}
			}
			if err := genrepo.CheckRendered(name, []byte(files[modelenv.PyprojectPath])); err != nil {
				t.Error(err)
			}
			// A wheel built from the patched repository declares the entry point, and the
			// artifact rules follow it to the generated models.
			checkout := modeltest.PatchedCheckout(files, name)
			dist := fixtures.BuildDistributions(t, checkout, nil)
			tree := modelenv.Tree{}
			for p, c := range checkout {
				tree[p] = []byte(c)
			}
			pkgDir := "cloudcoil/models/" + strings.ReplaceAll(name, "-", "_")
			wheel, sdist := readDist(t, dist)
			if !strings.Contains(string(wheel.EntryPoints), "[cloudcoil_models]") {
				t.Fatalf("the wheel declares no cloudcoil_models entry point:\n%s", wheel.EntryPoints)
			}
			if ps := models.CheckArtifacts(tree.FS(), pkgDir, wheel, sdist); len(ps) != 0 {
				t.Errorf("artifact problems: %v", ps)
			}
		})
	}
}

func readDist(t *testing.T, dist fixtures.Distributions) (models.Artifact, models.Artifact) {
	t.Helper()
	wheel, err := models.ReadWheel(strings.NewReader(string(dist.Wheel)), int64(len(dist.Wheel)))
	if err != nil {
		t.Fatal(err)
	}
	sdist, err := models.ReadSdist(strings.NewReader(string(dist.Sdist)))
	if err != nil {
		t.Fatal(err)
	}
	return wheel, sdist
}

// gen-repo renders the patched template the same way: make gen-repo-<name> in the
// patched checkout, on the double, for every real integration.
func TestGenRepoPatchedIntegrations(t *testing.T) {
	root := modeltest.PatchedCloudcoil(t)
	for _, name := range modeltest.RealIntegrations(t, root) {
		t.Run(name, func(t *testing.T) {
			env, e := modeltest.NewEnv(t)
			files := renderReal(t, e, root, name)
			repo, err := genrepo.Repo(context.Background(), env, env.Client.Host().Directory(root), name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := repo.File(modelenv.ShipyardReleaseWorkflow).Contents(context.Background())
			if err != nil || got != files[modelenv.ShipyardReleaseWorkflow] {
				t.Errorf("the generated repository lacks the rendered %s: %v", modelenv.ShipyardReleaseWorkflow, err)
			}
			if !modeltest.HasExec(e, "make gen-repo-"+name) {
				t.Errorf("no make gen-repo-%s", name)
			}
		})
	}
}

// templateFile reads one file of the template under root ("" when absent).
func templateFile(t *testing.T, root, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// The patch is made from the template as it is on the day. A fixed patch stopped applying
// once model-versions raised the template's requirement ("patch failed:
// …/pyproject.toml:14"); each state of the real template below gets a patch that applies
// and leaves the same workflows, the entry point and a requirement bounded to its minor.
func TestTemplatePatchAppliesToTheTemplateOfTheDay(t *testing.T) {
	edit := func(old, new string) func(t *testing.T, root string) {
		return func(t *testing.T, root string) {
			p := filepath.Join(root, filepath.FromSlash(upstreams.TemplatePyproject))
			b, err := os.ReadFile(p)
			if err != nil || !strings.Contains(string(b), old) {
				t.Fatalf("the real template no longer holds %q (%v)", old, err)
			}
			if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name    string
		prepare func(t *testing.T, root string)
		wantReq string
	}{
		{"the real template", func(*testing.T, string) {}, `"cloudcoil>=0.4.0,<0.5",`},
		{"after model-versions raised the requirement", edit(`"cloudcoil>=0.4.0",`, `"cloudcoil>=0.4.2",`), `"cloudcoil>=0.4.2,<0.5",`},
		{"a bound written by the maintainer stays", edit(`"cloudcoil>=0.4.0",`, `"cloudcoil>=0.4.3,<0.4.9",`), `"cloudcoil>=0.4.3,<0.4.9",`},
		{"test_pypi_publish.yml already removed", func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, filepath.FromSlash(genrepo.TemplateWorkflows+"test_pypi_publish.yml"))); err != nil {
				t.Fatal(err)
			}
		}, `"cloudcoil>=0.4.0,<0.5",`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if out, err := exec.Command("cp", "-r", filepath.Join(modeltest.CloudcoilTree(t), "cookiecutter"), root).CombinedOutput(); err != nil {
				t.Fatalf("copy: %v\n%s", err, out)
			}
			if out, err := exec.Command("chmod", "-R", "u+w", root).CombinedOutput(); err != nil {
				t.Fatalf("chmod: %v\n%s", err, out)
			}
			tt.prepare(t, root)
			modeltest.ApplyPatch(t, root, modeltest.TemplatePatchOf(t, root))

			for _, name := range genrepo.TemplateWorkflowNames() {
				want, err := genrepo.TemplateWorkflow(name)
				if err != nil {
					t.Fatal(err)
				}
				if got := templateFile(t, root, genrepo.TemplateWorkflows+name); got != string(want) {
					t.Errorf("%s after the patch is not Shipyard's workflow", name)
				}
			}
			for _, name := range genrepo.RetiredWorkflowNames() {
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(genrepo.TemplateWorkflows+name))); !os.IsNotExist(err) {
					t.Errorf("%s survived the patch (%v)", name, err)
				}
			}
			pyproject := templateFile(t, root, upstreams.TemplatePyproject)
			if !strings.Contains(pyproject, "    "+tt.wantReq+"\n") || strings.Count(pyproject, "[project.entry-points.cloudcoil_models]") != 1 {
				t.Errorf("the patched pyproject.toml lacks %s or its one entry point table:\n%s", tt.wantReq, pyproject)
			}
			// Made again from the patched template, the patch is empty: a re-run changes nothing.
			if again := modeltest.TemplatePatchOf(t, root); again != "" {
				t.Errorf("the patch of a patched template is not empty:\n%s", again)
			}
		})
	}
}

// Bad templates are refused with the file, and a lower bound beyond the minor with its line.
func TestTemplatePatchForRefusesWhatItCannotPatch(t *testing.T) {
	minor := upstreams.Line{Major: 0, Minor: 4}
	if _, err := genrepo.TemplatePatchFor(map[string][]byte{}, genrepo.CloudcoilBound{Minor: minor}); err == nil || !strings.Contains(err.Error(), upstreams.TemplatePyproject+": missing") {
		t.Errorf("no pyproject.toml: err %v", err)
	}
	beyond := []byte("[project]\nname = \"x\"\ndependencies = [\n    \"cloudcoil>=0.5.1\",\n]\n")
	_, err := genrepo.TemplatePatchFor(map[string][]byte{upstreams.TemplatePyproject: beyond}, genrepo.CloudcoilBound{Minor: minor})
	if err == nil || !strings.Contains(err.Error(), upstreams.TemplatePyproject+":4:") || !strings.Contains(err.Error(), "move cloudcoil.minor") {
		t.Errorf("a lower bound beyond the minor: err %v", err)
	}
	notTOML := []byte("[project\n")
	if _, err := genrepo.TemplatePatchFor(map[string][]byte{upstreams.TemplatePyproject: notTOML}, genrepo.CloudcoilBound{Minor: minor}); err == nil || !strings.Contains(err.Error(), upstreams.TemplatePyproject) {
		t.Errorf("not TOML: err %v", err)
	}
}

// Adoption decided Cloudcoil 0.5 (the real template's >=0.4.0 resolves to 0.5.8, as the
// real model repositories lock): the patch raises the real template's lower bound onto it,
// and a repository rendered from the patched template passes the dependency check with
// the lock its hook writes, 0.5.8, which the unpatched requirement's minor 0.4 refuses.
func TestTemplatePatchMigratesToTheAdoptedMinor(t *testing.T) {
	src := modeltest.CloudcoilTree(t)
	root := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(src, "cookiecutter"), filepath.Join(src, "models"), root).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v\n%s", err, out)
	}
	if out, err := exec.Command("chmod", "-R", "u+w", root).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v\n%s", err, out)
	}
	_, before, err := cookiecutter.Integration(root, "velero")
	if err != nil {
		t.Fatal(err)
	}
	if ps := modelrelease.CheckCloudcoilDependency([]byte(before[modelenv.PyprojectPath]), []byte(modeltest.LockWith("0.5.8"))); len(ps) == 0 {
		t.Fatal("the unpatched template's requirement accepts a 0.5.8 lock: this test shows nothing")
	}
	current := map[string][]byte{}
	for _, p := range genrepo.TemplatePaths() {
		if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p))); err == nil {
			current[p] = b
		}
	}
	patch, err := genrepo.TemplatePatchFor(current, genrepo.CloudcoilBound{Minor: upstreams.Line{Major: 0, Minor: 5}, Floor: "0.5.8"})
	if err != nil {
		t.Fatal(err)
	}
	modeltest.ApplyPatch(t, root, patch)
	_, after, err := cookiecutter.Integration(root, "velero")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(after[modelenv.PyprojectPath], `"cloudcoil>=0.5.8,<0.6",`) {
		t.Errorf("the rendered requirement is not raised onto 0.5:\n%s", after[modelenv.PyprojectPath])
	}
	if ps := modelrelease.CheckCloudcoilDependency([]byte(after[modelenv.PyprojectPath]), []byte(modeltest.LockWith("0.5.8"))); len(ps) != 0 {
		t.Errorf("the dependency check refuses the hook's 0.5.8 lock after the migration: %v", ps)
	}
	if ps := modelrelease.CheckCloudcoilDependency([]byte(after[modelenv.PyprojectPath]), []byte(modeltest.LockWith("0.4.10"))); len(ps) == 0 {
		t.Error("after the migration a 0.4 lock still passes")
	}
}
