package genrepo_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"dagger.io/dagger"

	pytoml "dagger/shipyard/internal/pyproject"
	"dagger/shipyard/internal/testkit/cookiecutter"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/models/genrepo"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/modeltest"
)

// renderReal programs the double so that make gen-repo-<name> in the real checkout
// renders what the test kit's own renderer of the template gives, and returns that.
func renderReal(t testing.TB, e *engine.Engine, root, name string) map[string]string {
	t.Helper()
	project, files, err := cookiecutter.Integration(root, name)
	if err != nil {
		t.Fatalf("%s: independent render: %v", name, err)
	}
	e.OnEntries(engine.DirRule{Path: genrepo.RenderDir, ChainContains: "gen-repo-" + name, Entries: []string{project + "/"}})
	modeltest.ServeRendered(e, project, files)
	return files
}

// Every real integration goes through gen-repo on the double: the repository's own
// make gen-repo-<name> runs in the real checkout, and what it renders (checked against an
// independent render of the real template) keeps the template's [project] and codegen
// settings with the integration's overlays appended, which the old overwrite lost.
func TestGenRepoRealIntegrations(t *testing.T) {
	root := modeltest.CloudcoilTree(t)
	for _, name := range modeltest.RealIntegrations(t, root) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			env, e := modeltest.NewEnv(t)
			files := renderReal(t, e, root, name)
			source := env.Client.Host().Directory(root)
			repo, err := genrepo.Repo(ctx, env, source, name)
			if err != nil {
				t.Fatal(err)
			}
			if !modeltest.HasExec(e, "make gen-repo-"+name) {
				t.Fatalf("no make gen-repo-%s in\n%s", name, strings.Join(modeltest.ExecArgs(e), "\n"))
			}
			got, err := repo.File(modelenv.PyprojectPath).Contents(ctx)
			if err != nil {
				t.Fatal(err)
			}
			overlay, _ := os.ReadFile(filepath.Join(root, "models", name, modelenv.PyprojectPath))
			if !strings.HasPrefix(got, "[project]\n") || !strings.HasSuffix(got, string(overlay)) {
				t.Errorf("pyproject.toml is not the template's with the overlay appended:\n%s", got)
			}
			doc, err := pytoml.Parse(modelenv.PyprojectPath, []byte(got))
			if err != nil {
				t.Fatal(err)
			}
			module := strings.ReplaceAll(name, "-", "_")
			ns := doc.StringValues(modelenv.CodegenNamespaceKey)
			if len(ns) != 1 || ns[0].Text != "cloudcoil.models."+module {
				t.Errorf("codegen namespace %+v", ns)
			}
			if urls := doc.StringValues(modelenv.CodegenURLKey); len(urls) == 0 || urls[0].Element != 0 {
				t.Errorf("codegen input %+v, want the template's array", urls)
			}
			readme, _ := os.ReadFile(filepath.Join(root, "models", name, "README.md"))
			if !strings.HasSuffix(files["README.md"], string(readme)) {
				t.Error("README.md overlay not appended")
			}
			// Overwriting instead of appending, as Shipyard once did, is refused.
			if err := genrepo.CheckRendered(name, overlay); err == nil {
				t.Error("CheckRendered accepted the overlay alone")
			}
			// The rendered tree holds the template's package __init__.py, into which the
			// real generator cannot move its own (generator.py 947–959): generation
			// removes cloudcoil/models first, in the chain that runs the generator.
			if _, ok := files["cloudcoil/models/"+module+"/__init__.py"]; !ok {
				t.Errorf("the real template no longer renders cloudcoil/models/%s/__init__.py", module)
			}
			generatedAsTheTemplate(t, e)
			// The generator reads the newest release line's schemas, as the release
			// workflow's sed makes them, not the version crd_urls happens to name.
			newestLineGenerated(t, e, files)
		})
	}
}

func TestCheckRendered(t *testing.T) {
	const ok = "[project]\nname = \"cloudcoil.models.keda\"\nversion = \"0.0.0\"\n\n[[tool.cloudcoil.codegen.models]]\nnamespace = \"cloudcoil.models.keda\"\ninput = [\n    \"https://x/v1.0.0/a.yaml\",\n]\n"
	tests := []struct{ name, file, want string }{
		{"the template's shape", ok, ""},
		{"an empty overlay alone", "", "[project] has no literal name"},
		{"a transformations overlay alone", "transformations = []\n", "[project] has no literal name"},
		{"no codegen entry", ok[:strings.Index(ok, "[[tool")], "no [[tool.cloudcoil.codegen.models]]"},
		{"no input", strings.Replace(ok, "input = [\n    \"https://x/v1.0.0/a.yaml\",\n]", "input = []", 1), "no [[tool.cloudcoil.codegen.models]]"},
		{"not TOML", ok + "[[tool\n", "pyproject.toml:10"},
	}
	for _, tt := range tests {
		err := genrepo.CheckRendered("keda", []byte(tt.file))
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
		if err != nil && !strings.Contains(err.Error(), "gen-repo keda") {
			t.Errorf("%s: error does not name the command and integration: %v", tt.name, err)
		}
	}
}

// BenchmarkGenRepoKubernetes renders the Kubernetes integration of the real repository
// on the engine double: the graph from the checkout to the generated repository.
func BenchmarkGenRepoKubernetes(b *testing.B) {
	root := modeltest.CloudcoilTree(b)
	e := engine.New(b, engine.StrictExecs())
	e.ExpectExecs(flowexecs.Model()...)
	renderReal(b, e, root, "kubernetes")
	env := modelenv.NewEnv(e.Client(context.Background()))
	var source *dagger.Directory = env.Client.Host().Directory(root)
	b.ResetTimer()
	for b.Loop() {
		repo, err := genrepo.Repo(context.Background(), env, source, "kubernetes")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := repo.File(modelenv.PyprojectPath).Contents(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// generatedAsTheTemplate fails unless every run of the generator is preceded, in its own
// container chain, by the template's removal of the generated packages, and followed by
// make fix-lint, on which every lint check runs.
func generatedAsTheTemplate(t *testing.T, e *engine.Engine) {
	t.Helper()
	ran, fixed := false, false
	for _, x := range e.Graph().Execs() {
		args := strings.Join(x.Args, " ")
		gen := strings.LastIndex(x.Chain, `"cloudcoil-model-codegen"]`)
		fix := strings.LastIndex(x.Chain, `withExec(args:["make","fix-lint"])`)
		switch {
		case strings.Contains(args, "cloudcoil-model-codegen"):
			ran = true
			rm := strings.Index(x.Chain, `withExec(args:["rm","-rf","cloudcoil/models"])`)
			if rm < 0 || rm > strings.Index(x.Chain, `"cloudcoil-model-codegen"]`) {
				t.Errorf("the generator runs on a tree whose cloudcoil/models was not removed first: %s", tail(x.Chain, 300))
			}
		case args == "make fix-lint":
			fixed = fixed || gen >= 0
		case args == "make lint":
			if gen < 0 || fix < gen {
				t.Errorf("make lint runs on generated models that make fix-lint did not format: %s", tail(x.Chain, 300))
			}
		}
	}
	if !ran || !fixed {
		t.Errorf("the generator ran: %v; make fix-lint ran after it: %v", ran, fixed)
	}
}

// Generation is the real template's gen-models recipe, step by step: the removal, the
// generator (from the locked environment, so --frozen), then $(MAKE) fix-lint, whose
// ruff sorts the imports by the repository's own first-party packages (the generator's
// ruff ran in a temporary folder, where cloudcoil is third-party).
func TestGenerationIsTheTemplatesGenModels(t *testing.T) {
	root := modeltest.CloudcoilTree(t)
	makefile, err := os.ReadFile(filepath.Join(root, genrepo.TemplateDir, "models-{{ cookiecutter.model_name }}", modelenv.MakefilePath))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(makefile), "\ngen-models:\n")
	if !ok {
		t.Fatal("the template's Makefile has no gen-models target")
	}
	var recipe []string
	for _, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "\t") {
			break
		}
		recipe = append(recipe, strings.TrimSpace(line))
	}
	var ours []string
	for _, step := range modelenv.GenModels() {
		s := strings.Join(step, " ")
		s = strings.Replace(s, "uv run --frozen ", "uv run ", 1)
		ours = append(ours, strings.Replace(s, "make ", "$(MAKE) ", 1))
	}
	if !slices.Equal(recipe, ours) {
		t.Errorf("the template's gen-models recipe is %q; Shipyard generates with %q", recipe, ours)
	}
}

// tail is the end of a long chain, for a readable failure.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// newestLineGenerated fails unless the pyproject.toml the generator runs with names, in its
// input URLs, the newest release line of the rendered repository.
func newestLineGenerated(t *testing.T, e *engine.Engine, files map[string]string) {
	t.Helper()
	lines, err := modelenv.ParseLineConfig(modelenv.UpdateReleasesWorkflow, []byte(files[modelenv.UpdateReleasesWorkflow]))
	if err != nil {
		t.Fatal(err)
	}
	rel, err := modelenv.ReleaseLines(lines)
	if err != nil {
		t.Fatal(err)
	}
	newest := rel[len(rel)-1].Upstream
	want, err := modelenv.SelectUpstream([]byte(files[modelenv.PyprojectPath]), lines, newest)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := pytoml.Parse(modelenv.PyprojectPath, want)
	if err != nil {
		t.Fatal(err)
	}
	url := doc.StringValues(modelenv.CodegenURLKey)[0].Text
	if string(want) == files[modelenv.PyprojectPath] {
		return // crd_urls names the newest line already
	}
	for _, x := range e.Graph().Execs() {
		if strings.Contains(strings.Join(x.Args, " "), "cloudcoil-model-codegen") && !strings.Contains(x.Chain, url) {
			t.Errorf("the generator does not run with the newest line's (%s) input %s", newest, url)
		}
	}
}

// releaseSed is the step of the rendered update_releases.yml that points pyproject.toml's
// input URLs at a line's version.
var releaseSed = regexp.MustCompile(`(?m)^\s*(sed -i "s\|.*\|" pyproject\.toml)\s*$`)

// SelectUpstream is the maintainers' release sed, run for real: for every integration of the
// real repository, at each of its lines, at the version crd_urls names and at a version
// neither names (a new line), the sed line of the rendered update_releases.yml, run by sed
// on the rendered pyproject.toml, gives the same file as SelectUpstream. keda's asset name
// carries the version (…/download/v2.16.1/keda-2.16.1-crds.yaml): the sed rewrites only
// the folder, and so must Shipyard.
func TestSelectUpstreamIsTheReleaseSed(t *testing.T) {
	sed, err := exec.LookPath("sed")
	if err != nil {
		t.Fatalf("the real sed is needed: %v", err)
	}
	root := modeltest.CloudcoilTree(t)
	for _, name := range modeltest.RealIntegrations(t, root) {
		t.Run(name, func(t *testing.T) {
			_, files, err := cookiecutter.Integration(root, name)
			if err != nil {
				t.Fatal(err)
			}
			workflow := files[modelenv.UpdateReleasesWorkflow]
			m := releaseSed.FindStringSubmatch(workflow)
			if m == nil {
				t.Fatalf("the rendered %s has no sed of pyproject.toml's input URLs", modelenv.UpdateReleasesWorkflow)
			}
			lines, err := modelenv.ParseLineConfig(modelenv.UpdateReleasesWorkflow, []byte(workflow))
			if err != nil {
				t.Fatal(err)
			}
			named := regexp.MustCompile(regexp.QuoteMeta(lines.Prefix) + `([0-9]+\.[0-9]+\.[0-9]+)/`).FindStringSubmatch(files[modelenv.PyprojectPath])
			if named == nil {
				t.Fatalf("no input URL of %s has a version after %q", modelenv.PyprojectPath, lines.Prefix)
			}
			versions := append(slices.Clone(lines.Versions), named[1], "99.1.0")
			for _, v := range versions {
				dir := t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, modelenv.PyprojectPath), []byte(files[modelenv.PyprojectPath]), 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command("sh", "-c", strings.ReplaceAll(m[1], "${{ matrix.model_version }}", v))
				cmd.Dir, cmd.Env = dir, []string{"PATH=" + filepath.Dir(sed)}
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", cmd, err, out)
				}
				want, err := os.ReadFile(filepath.Join(dir, modelenv.PyprojectPath))
				if err != nil {
					t.Fatal(err)
				}
				at := lines
				at.Versions = versions
				got, err := modelenv.SelectUpstream([]byte(files[modelenv.PyprojectPath]), at, v)
				if err != nil {
					t.Fatalf("SelectUpstream(%s): %v", v, err)
				}
				if string(got) != string(want) {
					t.Errorf("at %s, SelectUpstream gives\n%s\nthe release sed gives\n%s", v, inputLines(got), inputLines(want))
				}
			}
		})
	}
}

// inputLines are a pyproject.toml's lines that hold a URL.
func inputLines(b []byte) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "://") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return strings.Join(out, "\n")
}
