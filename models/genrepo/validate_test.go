package genrepo_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dagger.io/dagger"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/testkit/prcheckout"
	"dagger/shipyard/models/genrepo"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/modeltest"
	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/upstreams/upstreamstest"
)

// fixtureFiles are the model repository fixture's files: what the double renders.
var fixtureFiles = func() map[string]string {
	root := filepath.Join("..", "..", "internal", "testkit", "fixtures", "modelrepo")
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		panic(err) // the fixture is part of the repository
	}
	return files
}()

func TestGenRepo(t *testing.T) {
	ctx := context.Background()
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	repo, err := genrepo.Repo(ctx, env, modeltest.GeneratorRepo(t, env, nil), "cert-manager")
	if err != nil {
		t.Fatal(err)
	}
	// The rendered pyproject.toml, its inputs at cookiecutter.yaml's newest line.
	versions, sed, err := upstreams.CookiecutterLines(upstreamstest.ReadFile(t, "models/cert-manager/cookiecutter.yaml"), "cert-manager")
	if err != nil {
		t.Fatal(err)
	}
	newest := slices.MaxFunc(versions, func(a, b string) int {
		va, _ := upstreams.ParseVersion(a)
		vb, _ := upstreams.ParseVersion(b)
		return va.Compare(vb)
	})
	want, err := modelenv.SelectUpstream([]byte(fixtureFiles[modelenv.PyprojectPath]), modelenv.LineConfig{Versions: versions, Prefix: sed}, newest)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := repo.File(modelenv.PyprojectPath).Contents(ctx); err != nil || got != string(want) {
		t.Errorf("the generated repository's pyproject.toml is not the rendered one at the newest line %s: %v\n%s", newest, err, got)
	}
	var render engine.Exec
	for _, x := range e.Graph().Execs() {
		if strings.Join(x.Args, " ") == "make gen-repo-cert-manager" {
			render = x
		}
	}
	// The repository's own target, in the checkout with the Makefile, the template and
	// this integration's folder (its overlays and cookiecutter.yaml), and nothing else.
	if render.Args == nil || render.Workdir != genrepo.SourceDir {
		t.Fatalf("no make gen-repo-cert-manager in %s:\n%s", genrepo.SourceDir, strings.Join(modeltest.ExecArgs(e), "\n"))
	}
	for _, want := range []string{`filter(include:["Makefile","cookiecutter/","models/cert-manager/"])`} {
		if !strings.Contains(render.Chain, want) {
			t.Errorf("the rendering's inputs lack %s in %s", want, render.Chain)
		}
	}
	if strings.Contains(render.Chain, "models/keda") {
		t.Error("another integration's folder is an input of the rendering")
	}
	for _, want := range []string{
		// The published Cloudcoil version models/upstreams.json requires, exactly.
		"uv lock --upgrade-package cloudcoil==0.5.3",
		"uv sync --frozen",
		"uv run --frozen cloudcoil-model-codegen",
	} {
		if !modeltest.HasExec(e, want) {
			t.Errorf("no exec %q in\n%s", want, strings.Join(modeltest.ExecArgs(e), "\n"))
		}
	}
	for _, x := range e.Graph().Execs() {
		if !strings.Contains(x.Image, "python:3.13") || !strings.Contains(x.Image, "@sha256:") {
			t.Errorf("exec %v runs on %q, not the pinned Python image", x.Args, x.Image)
		}
	}
	modeltest.NoSecrets(t, e)
}

// The export is the repository the template and the generator made, as git would commit
// it: whatever the repository's own .gitignore ignores (here the real template's) is left
// out, at any depth: ruff's cache, which make fix-lint leaves, the environment the hook's
// uv sync makes, bytecode, build output.
func TestGenRepoExportsWhatGitKeeps(t *testing.T) {
	ctx := context.Background()
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	gitignore, err := os.ReadFile(filepath.Join(modeltest.CloudcoilTree(t), "cookiecutter", "models-{{ cookiecutter.model_name }}", ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	// The double runs no generator: rules say what it left in /repo.
	e.OnFile(engine.FileRule{Path: "/repo/.gitignore", ChainContains: "cloudcoil-model-codegen", Contents: string(gitignore)})
	e.OnEntries(engine.DirRule{Path: "/repo", ChainContains: "cloudcoil-model-codegen", Entries: []string{
		".gitignore", ".mypy_cache/", ".ruff_cache/", ".venv/", "cloudcoil/", "dist/", "pyproject.toml", "tests/"}})
	e.OnEntries(engine.DirRule{Path: "/repo/cloudcoil", ChainContains: "cloudcoil-model-codegen", Entries: []string{"models/"}})
	e.OnEntries(engine.DirRule{Path: "/repo/cloudcoil/models", ChainContains: "cloudcoil-model-codegen", Entries: []string{"__pycache__/", "x/"}})
	e.OnEntries(engine.DirRule{Path: "/repo/tests", ChainContains: "cloudcoil-model-codegen", Entries: []string{"test_models.py", "build/"}})
	repo, err := genrepo.Repo(ctx, env, modeltest.GeneratorRepo(t, env, nil), "cert-manager")
	if err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string][]string{
		"":                 {".gitignore", "cloudcoil/", modelenv.PyprojectPath, "tests/"},
		"cloudcoil/models": {"x/"},
		"tests":            {"test_models.py"},
	} {
		got, err := repo.Entries(ctx, dagger.DirectoryEntriesOpts{Path: dir})
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("the exported repository's %q holds %q, want %q (%v)", dir, got, want, err)
		}
	}
}

func TestGenRepoRefusesWhatItCannotRender(t *testing.T) {
	tests := []struct {
		name, integration string
		changes           map[string]string
		entries           []string
		want              string
	}{
		{"unknown integration", "linkerd", nil, []string{"models-x/"}, `models/linkerd/cookiecutter.yaml is missing; an integration is rendered from the shared template cookiecutter/ with its own models/linkerd/cookiecutter.yaml (integrations here: cert-manager, istio,`},
		{"no gen-repo rule", "keda", map[string]string{"Makefile": "test:\n\tpytest\n"}, []string{"models-x/"}, "Makefile has no gen-repo-% rule"},
		{"missing config", "keda", map[string]string{"models/keda/cookiecutter.yaml": ""}, []string{"models-x/"}, "models/keda/cookiecutter.yaml is missing"},
		{"missing template", "keda", map[string]string{"cookiecutter/cookiecutter.json": ""}, []string{"models-x/"}, "cookiecutter/cookiecutter.json is missing"},
		{"template renders two folders", "keda", nil, []string{"a/", "b/"}, "want one repository folder"},
		{"broken upstreams file", "keda", map[string]string{"models/upstreams.json": "{}"}, nil, "models/upstreams.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, e := modeltest.NewEnv(t)
			e.OnEntries(engine.DirRule{Path: genrepo.RenderDir, Entries: tt.entries})
			_, err := genrepo.Repo(context.Background(), env, modeltest.GeneratorRepo(t, env, tt.changes), tt.integration)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestValidateModels(t *testing.T) {
	oneByte := func(kind string, files map[string]string) {
		if kind == "wheel" {
			files["cloudcoil/models/cert_manager/v1.py"] += " "
		}
	}
	tests := []struct {
		name     string
		opts     genrepo.ValidateOptions
		program  func(e *engine.Engine)
		edit     func(kind string, files map[string]string)
		wantErr  bool
		wantRows []string // "| job | status |" prefixes that must appear
		wantOnly []string // the integrations validated
	}{
		{
			name:     "a change under models/<name>/ checks that integration",
			opts:     genrepo.ValidateOptions{Changed: []string{"models/keda/cookiecutter.yaml", "docs/index.md"}},
			wantRows: []string{"| keda: generate | passed", "| keda: lint | passed", "| keda: test | passed", "| keda: artifacts | passed"},
			wantOnly: []string{"keda"},
		},
		{
			name:     "a shared template change checks every integration",
			opts:     genrepo.ValidateOptions{Changed: []string{"cookiecutter/{{cookiecutter.repo_name}}/Makefile"}},
			wantRows: []string{"| velero: artifacts | passed", "| kubernetes: test | passed"},
			wantOnly: upstreamstest.Names(),
		},
		{
			name:     "without a diff everything is checked",
			wantRows: []string{"| istio: lint | passed"},
			wantOnly: upstreamstest.Names(),
		},
		{
			name: "a failing lint fails the run with the table",
			opts: genrepo.ValidateOptions{Changed: []string{"models/keda/x", "models/istio/y"}},
			program: func(e *engine.Engine) {
				e.OnExec(engine.ExecRule{ArgsContain: "make lint", Match: func(x engine.Exec) bool { return strings.Contains(x.Chain, "models/keda") },
					ExitCode: 1, Stderr: "cloudcoil/models/cert_manager/v1.py:3:1: F401 [*] `os` imported but unused\nFound 1 error."})
			},
			wantErr:  true,
			wantRows: []string{"| keda: lint | failed", "| istio: lint | passed", "| keda: artifacts | passed"},
			wantOnly: []string{"istio", "keda"},
		},
		{
			name:     "an artifact that differs by one byte fails",
			opts:     genrepo.ValidateOptions{Changed: []string{"models/cert-manager/README.md"}},
			edit:     oneByte,
			wantErr:  true,
			wantRows: []string{"| cert-manager: artifacts | failed | ", "| cert-manager: test | passed"},
			wantOnly: []string{"cert-manager"},
		},
		{
			name: "a failed generation skips the checks",
			opts: genrepo.ValidateOptions{Changed: []string{"models/velero/cookiecutter.yaml"}},
			program: func(e *engine.Engine) {
				e.OnExec(engine.ExecRule{ArgsContain: "cloudcoil-model-codegen", ExitCode: 1, Stderr: "error: schema https://…/velero.io_backups.yaml: 404"})
			},
			wantErr:  true,
			wantRows: []string{"| velero: generate | failed", "| velero: lint | skipped", "| velero: artifacts | skipped"},
			wantOnly: []string{"velero"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, e := modeltest.NewEnv(t)
			modeltest.RenderAnything(e)
			modeltest.ServeDistributions(e, "", fixtures.BuildDistributions(t, fixtures.ModelRepoFiles(t, nil), tt.edit))
			if tt.program != nil {
				tt.program(e)
			}
			v, err := genrepo.ValidateModels(context.Background(), env, modeltest.GeneratorRepo(t, env, nil), tt.opts)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v\n%s", err, v.Text())
			}
			table := v.Summary.Table()
			if err != nil && !strings.Contains(err.Error(), table) {
				t.Errorf("the error does not carry the table: %v", err)
			}
			for _, row := range tt.wantRows {
				if !strings.Contains(table, row) {
					t.Errorf("table lacks %q:\n%s", row, table)
				}
			}
			if strings.Join(v.Integrations, ",") != strings.Join(tt.wantOnly, ",") {
				t.Errorf("validated %v, want %v", v.Integrations, tt.wantOnly)
			}
			// generate, lint, test, artifacts: the fixture's Makefile has no typecheck target
			// (its lint target runs mypy, as the template's does).
			if got, want := len(v.Summary.Jobs), 4*len(tt.wantOnly); got != want {
				t.Errorf("%d rows, want %d", got, want)
			}
			modeltest.NoSecrets(t, e)
		})
	}
}

func TestValidateModelsDiffsTheBase(t *testing.T) {
	old := string(upstreamstest.ReadFile(t, "models/upstreams.json"))
	changed := strings.Replace(old, `"2.16.1"`, `"2.17.0"`, 1) // keda's matrix
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	modeltest.ServeDistributions(e, "", fixtures.BuildDistributions(t, fixtures.ModelRepoFiles(t, nil), nil))
	// What the engine answers for the source's Git history: the upstreams file and a
	// workflow file changed since the merge base with main.
	e.OnField(engine.FieldRule{Type: "Changeset", Field: "modifiedPaths", Value: []any{"models/upstreams.json", ".github/workflows/release.yml"}})
	e.OnField(engine.FieldRule{Type: "Directory", Field: "exists", ChainContains: "commonAncestor", Value: true})
	e.OnFile(engine.FileRule{Path: "models/upstreams.json", ChainContains: "commonAncestor", Contents: old})
	// A maintainer's clone: a branch checked out beside a local main (the double reads
	// only the refs; the rules above answer for the history).
	sha := strings.Repeat("1", 40)
	repo := modeltest.GeneratorRepo(t, env, map[string]string{"models/upstreams.json": changed,
		".git/HEAD": "ref: refs/heads/keda-2.17\n", ".git/refs/heads/keda-2.17": sha + "\n", ".git/refs/heads/main": sha + "\n"})
	v, err := genrepo.ValidateModels(context.Background(), env, repo, genrepo.ValidateOptions{Base: "main"})
	if err != nil {
		t.Fatalf("%v\n%s", err, v.Text())
	}
	if strings.Join(v.Integrations, ",") != "keda" || v.Everything {
		t.Errorf("validated %v (everything %v), want keda alone", v.Integrations, v.Everything)
	}
	if !strings.Contains(v.Text(), "Validated keda (changed integrations)") {
		t.Errorf("text:\n%s", v.Text())
	}
	modeltest.NoSecrets(t, e)
}

func TestValidateModelsNothingChanged(t *testing.T) {
	env, e := modeltest.NewEnv(t)
	v, err := genrepo.ValidateModels(context.Background(), env, modeltest.GeneratorRepo(t, env, nil), genrepo.ValidateOptions{Changed: []string{"docs/index.md"}})
	if err != nil || len(v.Integrations) != 0 || v.Text() != "No integration changed; nothing to validate.\n" {
		t.Errorf("%+v, %v", v, err)
	}
	if len(e.Graph().Execs()) != 0 {
		t.Errorf("ran %v", modeltest.ExecArgs(e))
	}
}

func TestValidateModelsOneIntegration(t *testing.T) {
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	modeltest.ServeDistributions(e, "", fixtures.BuildDistributions(t, fixtures.ModelRepoFiles(t, nil), nil))
	// --name wins over a change that would select every integration.
	v, err := genrepo.ValidateModels(context.Background(), env, modeltest.GeneratorRepo(t, env, nil),
		genrepo.ValidateOptions{Name: "kyverno", Changed: []string{"cookiecutter/cookiecutter.json"}})
	if err != nil {
		t.Fatalf("%v\n%s", err, v.Text())
	}
	if strings.Join(v.Integrations, ",") != "kyverno" || len(v.Summary.Jobs) != 4 || !strings.Contains(v.Text(), "Validated kyverno (named with --name)") {
		t.Errorf("validation:\n%s", v.Text())
	}
	for _, x := range e.Graph().Execs() {
		if strings.Contains(strings.Join(x.Args, " "), "cookiecutter --no-input --config-file models/") &&
			!strings.Contains(strings.Join(x.Args, " "), "models/kyverno/cookiecutter.yaml") {
			t.Errorf("rendered another integration: %v", x.Args)
		}
	}
	if _, err := genrepo.ValidateModels(context.Background(), env, modeltest.GeneratorRepo(t, env, nil), genrepo.ValidateOptions{Name: "linkerd"}); err == nil ||
		!strings.Contains(err.Error(), `models/upstreams.json has no integration "linkerd" (known: `) {
		t.Errorf("unknown name: %v", err)
	}
}

func TestSelectIntegrationsListsForAMatrix(t *testing.T) {
	tests := []struct {
		name string
		opts genrepo.ValidateOptions
		want string
	}{
		{"changed integrations", genrepo.ValidateOptions{Changed: []string{"models/keda/pyproject.toml", "models/istio/README.md"}}, `["istio","keda"]`},
		{"nothing changed", genrepo.ValidateOptions{Changed: []string{"docs/index.md"}}, `[]`},
		{"a shared change lists every integration", genrepo.ValidateOptions{Changed: []string{"cookiecutter/cookiecutter.json"}}, `["` + strings.Join(upstreamstest.Names(), `","`) + `"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, e := modeltest.NewEnv(t)
			v, err := genrepo.SelectIntegrations(context.Background(), modeltest.GeneratorRepo(t, env, nil), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := v.ListJSON(); got != tt.want {
				t.Errorf("list %s, want %s", got, tt.want)
			}
			if n := len(e.Graph().Execs()); n != 0 {
				t.Errorf("listing ran %d commands", n)
			}
		})
	}
}

// The adoption pull request itself: the real repository has no models/upstreams.json at
// the base nor in the tree, and --base selects by path as a list of changed paths does.
func TestSelectIntegrationsBaseWithoutUpstreams(t *testing.T) {
	// The pull request's checkout, as actions/checkout leaves it; the rules answer for the
	// history, which the double does not read.
	clone := prcheckout.New(t, prcheckout.Options{Tree: modeltest.CloudcoilTree(t), Change: map[string]string{"models/velero/README.md": "# velero\n"}})
	env, e := modeltest.NewEnv(t)
	e.OnField(engine.FieldRule{Type: "Changeset", Field: "modifiedPaths", Value: []any{"models/velero/README.md", ".github/workflows/update_repos.yml"}})
	e.OnField(engine.FieldRule{Type: "Directory", Field: "exists", ChainContains: "commonAncestor", Value: false})
	v, err := genrepo.SelectIntegrations(context.Background(), env.Client.Host().Directory(clone.Dir), genrepo.ValidateOptions{Base: "refs/remotes/origin/main"})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.ListJSON(); got != `["velero"]` {
		t.Errorf("selected %s, want velero", got)
	}
}

// An integration folder that models/upstreams.json does not list (a 13th integration added
// with a real cookiecutter.yaml and no entry) is named, not silently left unvalidated,
// while update-repos would publish it.
func TestSelectIntegrationsNamesAnUnlistedIntegration(t *testing.T) {
	real, err := os.ReadFile(filepath.Join(modeltest.CloudcoilTree(t), "models", "velero", "cookiecutter.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	env, _ := modeltest.NewEnv(t)
	src := modeltest.GeneratorRepo(t, env, map[string]string{"models/linkerd/cookiecutter.yaml": strings.ReplaceAll(string(real), "velero", "linkerd")})
	for _, opts := range []genrepo.ValidateOptions{{}, {Changed: []string{"models/linkerd/cookiecutter.yaml"}}} {
		_, err := genrepo.SelectIntegrations(context.Background(), src, opts)
		if err == nil || !strings.Contains(err.Error(), "models/linkerd/cookiecutter.yaml") || !strings.Contains(err.Error(), "no entry in models/upstreams.json") {
			t.Errorf("%+v: err = %v, want the unlisted integration named", opts, err)
		}
	}
}

// A change to the generator's code (cloudcoil/codegen/) validates every integration with
// the checkout's generator: uv layers the checkout's project, mounted at GeneratorDir,
// over each repository's locked environment for the generator's run alone. A matrix job
// (--name) with the change's paths generates its one integration the same way; without
// them, and for a template change, the published generator runs.
func TestValidateModelsWithTheCheckoutsGenerator(t *testing.T) {
	tests := []struct {
		name         string
		opts         genrepo.ValidateOptions
		wantOnly     []string
		wantCheckout bool
	}{
		{"a generator change validates everything with it", genrepo.ValidateOptions{Changed: []string{"cloudcoil/codegen/generator.py"}}, upstreamstest.Names(), true},
		{"a matrix job of a generator change", genrepo.ValidateOptions{Name: "keda", Changed: []string{"cloudcoil/codegen/generator.py", "cookiecutter/x"}}, []string{"keda"}, true},
		{"a template change keeps the published generator", genrepo.ValidateOptions{Changed: []string{"cookiecutter/x"}}, upstreamstest.Names(), false},
		{"a core change outside the generator validates nothing", genrepo.ValidateOptions{Changed: []string{"cloudcoil/resources.py"}}, nil, false},
		{"a matrix job without the change's paths", genrepo.ValidateOptions{Name: "keda"}, []string{"keda"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, e := modeltest.NewEnv(t)
			modeltest.RenderAnything(e)
			modeltest.ServeDistributions(e, "", fixtures.BuildDistributions(t, fixtures.ModelRepoFiles(t, nil), nil))
			v, err := genrepo.ValidateModels(context.Background(), env, modeltest.GeneratorRepo(t, env, map[string]string{
				"pyproject.toml":                 "[project]\nname = \"cloudcoil\"\nversion = \"0.5.0dev0\"\n",
				"cloudcoil/codegen/generator.py": "def main():\n    pass\n",
			}), tt.opts)
			if err != nil {
				t.Fatalf("%v\n%s", err, v.Text())
			}
			if strings.Join(v.Integrations, ",") != strings.Join(tt.wantOnly, ",") || v.CheckoutGenerator != tt.wantCheckout {
				t.Fatalf("validated %v with the checkout's generator %v; want %v, %v", v.Integrations, v.CheckoutGenerator, tt.wantOnly, tt.wantCheckout)
			}
			if said := strings.Contains(v.Text(), "generated with the checkout's generator"); said != (tt.wantCheckout && len(tt.wantOnly) > 0) {
				t.Errorf("the text says so: %v\n%s", said, v.Text())
			}
			published, checkout := 0, 0
			for _, x := range e.Graph().Execs() {
				switch strings.Join(x.Args, " ") {
				case "uv run --frozen cloudcoil-model-codegen":
					published++
				case "uv run --frozen --with-editable " + modelenv.GeneratorDir + " cloudcoil-model-codegen":
					checkout++
					mounted := false
					for _, m := range x.Mounts {
						mounted = mounted || m.Path == modelenv.GeneratorDir
					}
					if !mounted {
						t.Errorf("the checkout's generator runs without the checkout at %s: %+v", modelenv.GeneratorDir, x.Mounts)
					}
				}
			}
			wantCheckout, wantPublished := 0, len(tt.wantOnly)
			if tt.wantCheckout {
				wantCheckout, wantPublished = len(tt.wantOnly), 0
			}
			if checkout != wantCheckout || published != wantPublished {
				t.Errorf("generator runs: %d the checkout's, %d the published; want %d and %d", checkout, published, wantCheckout, wantPublished)
			}
			modeltest.NoSecrets(t, e)
		})
	}
}

// A repository whose Makefile lost a target fails its checks with the error naming the
// target and the Makefile, and runs none of its commands.
func TestValidateModelsNamesAMissingTarget(t *testing.T) {
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	// What the template and keda's Makefile overlay rendered lacks a test target.
	e.OnFile(engine.FileRule{Path: "output/models-x/Makefile", ChainContains: "gen-repo-keda", Contents: "lint:\n\truff check .\n"})
	src := modeltest.GeneratorRepo(t, env, map[string]string{"models/keda/Makefile": "lint:\n\truff check .\n"})
	v, err := genrepo.ValidateModels(context.Background(), env, src, genrepo.ValidateOptions{Changed: []string{"models/keda/Makefile"}})
	if err == nil || !strings.Contains(err.Error(), "| keda: test | failed") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(v.Summary.Table(), "Makefile: no target test") {
		t.Errorf("table does not name the target and the Makefile:\n%s", v.Summary.Table())
	}
	if modeltest.HasExec(e, "make lint") {
		t.Error("ran make lint although the Makefile lacks a target the checks need")
	}
}
