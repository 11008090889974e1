package genrepo

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"dagger.io/dagger"

	pytoml "dagger/shipyard/internal/pyproject"
	"dagger/shipyard/models"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/upstreams"
)

// TemplateDir is the shared cookiecutter template in the Cloudcoil repository.
const TemplateDir = "cookiecutter"

// SourceDir is where the Cloudcoil checkout sits in the rendering container: the
// Makefile's gen-repo-% target runs there and writes output/models-<name>.
const SourceDir = "/src"

// RenderDir is where `make gen-repo-<name>` writes the rendered repository, one folder
// (its --output-dir=output, under SourceDir).
const RenderDir = SourceDir + "/output"

// GenRepoTarget is the root Makefile's pattern rule that renders an integration.
const GenRepoTarget = "gen-repo-%"

// integrationDir is an integration's source folder: cookiecutter.yaml and the overlays.
func integrationDir(name string) string { return "models/" + name }

// Repo renders an integration's generated repository from the Cloudcoil repository
// source and generates its models. The rendering is the repository's own `make
// gen-repo-<name>`, the command its maintainers run, so Shipyard and a maintainer get the
// same tree: cookiecutter renders TemplateDir with models/<name>/cookiecutter.yaml and
// _config_dir=models/<name>, and the template's post-generation hook runs uv sync and uv
// add cloudcoil -U, appends the integration's overlays (Makefile, pyproject.toml,
// README.md) to the rendered files and runs make fix-lint. The generator then runs with
// the published Cloudcoil version: the one models/upstreams.json requires, locked
// exactly, when the repository has that file; else the newest the hook's uv add locked.
// The result is what git would commit of it: the paths the repository's own .gitignore
// ignores (ruff's cache from make fix-lint, the hook's environment, bytecode, build
// output) are left out, as they are from the maintainers' repositories.
func Repo(ctx context.Context, e modelenv.Env, source *dagger.Directory, name string) (*dagger.Directory, error) {
	gen, err := genRepo(ctx, e, source, name, nil)
	if err != nil {
		return nil, err
	}
	if _, err := gen.Sync(ctx); err != nil {
		return nil, fmt.Errorf("gen-repo %s: %w", name, err)
	}
	return modelenv.Committed(gen.Directory("/repo")), nil
}

// genRepo is Repo's graph, unevaluated past the rendering: the container whose /repo
// is the generated repository. generator, when given, is the Cloudcoil project whose
// generator runs instead of the published one (CheckoutGenerator).
func genRepo(ctx context.Context, e modelenv.Env, source *dagger.Directory, name string, generator *dagger.Directory) (*dagger.Container, error) {
	pin, err := renderPrerequisites(ctx, e, source, name)
	if err != nil {
		return nil, err
	}
	// Only the Makefile, the template and this integration's folder go in, so a change
	// elsewhere leaves the rendering cached.
	inputs := source.Filter(dagger.DirectoryFilterOpts{Include: []string{modelenv.MakefilePath, TemplateDir + "/", integrationDir(name) + "/"}})
	ctr, err := e.PythonContainer(e.Client.Directory())
	if err != nil {
		return nil, fmt.Errorf("gen-repo %s: %w", name, err)
	}
	if ctr, err = e.WithMake(ctr); err != nil {
		return nil, fmt.Errorf("gen-repo %s: %w", name, err)
	}
	rendered := ctr.
		WithDirectory(SourceDir, inputs).
		WithWorkdir(SourceDir).
		WithExec([]string{"make", "gen-repo-" + name})
	entries, err := rendered.Directory(RenderDir).Entries(ctx)
	if err != nil {
		return nil, fmt.Errorf("gen-repo %s: make gen-repo-%s: %w", name, name, err)
	}
	if len(entries) != 1 || !strings.HasSuffix(entries[0], "/") {
		slices.Sort(entries)
		return nil, fmt.Errorf("gen-repo %s: make gen-repo-%s rendered %q in output/; want one repository folder", name, name, entries)
	}
	repo := rendered.Directory(RenderDir + "/" + strings.TrimSuffix(entries[0], "/"))
	pyproject, err := repo.File(modelenv.PyprojectPath).Contents(ctx)
	if err != nil {
		return nil, fmt.Errorf("gen-repo %s: the rendered repository has no %s: %w", name, modelenv.PyprojectPath, err)
	}
	if err := CheckRendered(name, []byte(pyproject)); err != nil {
		return nil, err
	}
	if repo, err = newestLine(ctx, source, repo, name, []byte(pyproject)); err != nil {
		return nil, err
	}
	gen, err := e.Generate(repo, pin, generator)
	if err != nil {
		return nil, fmt.Errorf("gen-repo %s: %w", name, err)
	}
	return gen, nil
}

// newestLine points the rendered repository's generator at the newest release line of the
// integration's cookiecutter.yaml (which the template renders into the release workflow's
// matrix), as that workflow's sed does for each line: main carries the models of the newest
// configured upstream version, and validation checks the schemas a release will use, not
// the version crd_urls happens to name.
func newestLine(ctx context.Context, source, repo *dagger.Directory, name string, pyproject []byte) (*dagger.Directory, error) {
	config := upstreams.CookiecutterPath(name)
	data, err := source.File(config).Contents(ctx)
	if err != nil {
		return nil, fmt.Errorf("gen-repo %s: %s: %w", name, config, err)
	}
	versions, sed, err := upstreams.CookiecutterLines([]byte(data), name)
	if err != nil {
		return nil, fmt.Errorf("gen-repo %s: %w", name, err)
	}
	lines := modelenv.LineConfig{Path: config, Versions: versions, Prefix: sed}
	rel, err := modelenv.ReleaseLines(lines)
	if err != nil {
		return nil, fmt.Errorf("gen-repo %s: %w", name, err)
	}
	if !bytes.Contains(pyproject, []byte(sed)) {
		// No input URL holds the prefix: the workflow's sed changes nothing either.
		return repo, nil
	}
	selected, err := modelenv.SelectUpstream(pyproject, lines, rel[len(rel)-1].Upstream)
	if err != nil {
		return nil, fmt.Errorf("gen-repo %s: %w", name, err)
	}
	if bytes.Equal(selected, pyproject) {
		return repo, nil
	}
	return repo.WithNewFile(modelenv.PyprojectPath, string(selected)), nil
}

// renderPrerequisites checks that source can render name: the template, the
// integration's cookiecutter.yaml and the root Makefile's gen-repo-% target. It returns
// the Cloudcoil version models/upstreams.json requires ("" when the repository has no
// such file, as Cloudcoil before Shipyard).
func renderPrerequisites(ctx context.Context, e modelenv.Env, source *dagger.Directory, name string) (string, error) {
	config := upstreams.CookiecutterPath(name)
	for _, p := range []string{config, TemplateDir + "/cookiecutter.json", modelenv.MakefilePath} {
		ok, err := source.Exists(ctx, p)
		if err != nil {
			return "", fmt.Errorf("gen-repo %s: looking for %s: %w", name, p, err)
		}
		if !ok {
			if p == config {
				known, _ := integrations(ctx, source)
				return "", fmt.Errorf("gen-repo %s: %s is missing; an integration is rendered from the shared template %s/ with its own %s (integrations here: %s)",
					name, p, TemplateDir, config, strings.Join(known, ", "))
			}
			return "", fmt.Errorf("gen-repo %s: %s is missing; is --source the Cloudcoil repository?", name, p)
		}
	}
	makefile, err := source.File(modelenv.MakefilePath).Contents(ctx)
	if err != nil {
		return "", fmt.Errorf("gen-repo %s: %s: %w", name, modelenv.MakefilePath, err)
	}
	if !models.ParseMakefile(makefile).Has("gen-repo-" + name) {
		return "", fmt.Errorf("gen-repo %s: %s has no %s rule, which renders an integration as its maintainers do; add Cloudcoil's:\n%s", name, modelenv.MakefilePath, GenRepoTarget, GenRepoRule)
	}
	ok, err := source.Exists(ctx, upstreams.FilePath)
	if err != nil || !ok {
		return "", err
	}
	file, err := ReadUpstreams(ctx, source)
	if err != nil {
		return "", err
	}
	return file.Cloudcoil.Version, nil
}

// GenRepoRule is the rule as Cloudcoil's Makefile writes it.
const GenRepoRule = "gen-repo-%:\n\trm -rf output/models-$*\n\tuvx cookiecutter --no-input --output-dir=output --config-file=models/$*/cookiecutter.yaml cookiecutter _config_dir=$$PWD/models/$*"

// CheckRendered refuses a rendered repository whose pyproject.toml lost what the
// template writes: [project]'s literal name and version and the generator's settings
// (a codegen namespace and input URLs). A rendering that replaced the template's
// pyproject.toml with the integration's overlay instead of appending it has none of them.
func CheckRendered(name string, pyproject []byte) error {
	where := fmt.Sprintf("gen-repo %s: the rendered %s", name, modelenv.PyprojectPath)
	doc, err := pytoml.Parse(modelenv.PyprojectPath, pyproject)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if _, err := modelenv.ReadProject(pyproject); err != nil {
		return fmt.Errorf("%s: %w (the template's [project] must come first and models/%s/%s be appended to it, as the template's post-generation hook does)", where, err, name, modelenv.PyprojectPath)
	}
	entries := 0
	for _, v := range doc.StringValues(modelenv.CodegenNamespaceKey) {
		if v.Entry >= 0 {
			entries++
		}
	}
	urls := 0
	for _, v := range doc.StringValues(modelenv.CodegenURLKey) {
		if v.Entry >= 0 {
			urls++
		}
	}
	if entries == 0 || urls == 0 {
		return fmt.Errorf("%s has no [[tool.cloudcoil.codegen.models]] with a namespace and input URLs; the template writes them from crd_urls in models/%s/cookiecutter.yaml", where, name)
	}
	return nil
}

// integrations are the folders under models/ that hold a cookiecutter.yaml: what
// `make gen-all-repos` renders.
func integrations(ctx context.Context, source *dagger.Directory) ([]string, error) {
	entries, err := source.Directory("models").Entries(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		name := strings.TrimSuffix(e, "/")
		if name == e {
			continue // a file, such as upstreams.json
		}
		if ok, err := source.Exists(ctx, upstreams.CookiecutterPath(name)); err == nil && ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// ReadUpstreams reads and validates the generator repository's upstreams file.
func ReadUpstreams(ctx context.Context, source *dagger.Directory) (*upstreams.File, error) {
	data, err := source.File(upstreams.FilePath).Contents(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (is --source the Cloudcoil repository?)", upstreams.FilePath, err)
	}
	file, err := upstreams.Parse([]byte(data))
	if err != nil {
		return nil, err
	}
	return file, nil
}
