package modelrelease

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/models/upstreams"
)

// TemplateDir is the shared cookiecutter template in the Cloudcoil repository.
const TemplateDir = "cookiecutter"

// RenderDir is where cookiecutter writes the rendered repository, one folder.
const RenderDir = "/out"

// integrationDir is an integration's source folder: cookiecutter.yaml and the overlays.
func integrationDir(name string) string { return "models/" + name }

// GenRepo renders an integration's generated repository from the Cloudcoil repository
// source and generates its models, as `make gen-repo-<name>` does: cookiecutter renders
// TemplateDir with models/<name>/cookiecutter.yaml, the integration's overlays (every
// other file under models/<name>/: pyproject.toml, schema, README, Makefile, tests) are
// copied over the result, and the generator runs with the published Cloudcoil version
// models/upstreams.json requires, locked exactly, never the source's own Cloudcoil code.
func (e Env) GenRepo(ctx context.Context, source *dagger.Directory, name string) (*dagger.Directory, error) {
	gen, err := e.genRepo(ctx, source, name)
	if err != nil {
		return nil, err
	}
	if _, err := gen.Sync(ctx); err != nil {
		return nil, fmt.Errorf("gen-repo %s: %w", name, err)
	}
	return gen.Directory("/repo"), nil
}

// genRepo is GenRepo's graph, unevaluated past the rendering: the container whose /repo
// is the generated repository.
func (e Env) genRepo(ctx context.Context, source *dagger.Directory, name string) (*dagger.Container, error) {
	file, err := readUpstreams(ctx, source)
	if err != nil {
		return nil, err
	}
	if file.Integrations[name] == nil {
		return nil, fmt.Errorf("%s: no integration %q (known: %s); add its entry, models/%s/cookiecutter.yaml and its tests",
			upstreams.FilePath, name, strings.Join(file.Names(), ", "), name)
	}
	config := upstreams.CookiecutterPath(name)
	for _, p := range []string{config, TemplateDir + "/cookiecutter.json"} {
		ok, err := source.Exists(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("gen-repo %s: looking for %s: %w", name, p, err)
		}
		if !ok {
			return nil, fmt.Errorf("gen-repo %s: %s is missing; an integration is rendered from the shared template %s/ with its own %s", name, p, TemplateDir, config)
		}
	}
	// Only the template and this integration's folder go in, so a change elsewhere
	// leaves the rendering cached.
	inputs := source.Filter(dagger.DirectoryFilterOpts{Include: []string{TemplateDir + "/", integrationDir(name) + "/"}})
	ctr, err := e.python(inputs)
	if err != nil {
		return nil, fmt.Errorf("gen-repo %s: %w", name, err)
	}
	rendered := ctr.WithExec([]string{
		"uvx", "--from", cookiecutterRequirement, "cookiecutter", TemplateDir,
		"--no-input", "--config-file", config, "--output-dir", RenderDir,
	})
	entries, err := rendered.Directory(RenderDir).Entries(ctx)
	if err != nil {
		return nil, fmt.Errorf("gen-repo %s: rendering %s with %s: %w", name, TemplateDir, config, err)
	}
	if len(entries) != 1 || !strings.HasSuffix(entries[0], "/") {
		slices.Sort(entries)
		return nil, fmt.Errorf("gen-repo %s: the template rendered %q; want one repository folder", name, entries)
	}
	overlays := source.Directory(integrationDir(name)).Filter(dagger.DirectoryFilterOpts{Exclude: []string{"cookiecutter.yaml"}})
	repo := rendered.Directory(RenderDir+"/"+strings.TrimSuffix(entries[0], "/")).WithDirectory(".", overlays)
	gen, err := e.generate(repo, file.Cloudcoil.Version)
	if err != nil {
		return nil, fmt.Errorf("gen-repo %s: %w", name, err)
	}
	return gen, nil
}

// readUpstreams reads and validates the generator repository's upstreams file.
func readUpstreams(ctx context.Context, source *dagger.Directory) (*upstreams.File, error) {
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
