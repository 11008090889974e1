package genrepo

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/models/upstreams"
)

// TemplatePatchFile is the name of the patch model-template-patch returns.
const TemplatePatchFile = "cloudcoil-template.patch"

// templateRoot is the rendered repository's folder in the template.
const templateRoot = TemplateDir + "/models-{{ cookiecutter.model_name }}/"

// TemplateWorkflows is where the template keeps a model repository's workflows.
const TemplateWorkflows = templateRoot + ".github/workflows/"

// templateWorkflows are Shipyard's workflows for a model repository, as the template holds
// them: each wrapped in {% raw %}, so the template renders them as they are and update-repos,
// which pushes the whole rendered tree, keeps them.
//
//go:embed template/*.yml
var templateWorkflows embed.FS

// TemplateWorkflowNames are the workflows the patch writes (from templateWorkflows).
func TemplateWorkflowNames() []string {
	return []string{"ci.yml", "pypi_publish.yml", "shipyard_release.yml"}
}

// RetiredWorkflowNames are the workflows the patch removes: update_releases.yml, so two
// release flows never run, and test_pypi_publish.yml, so no prerelease reaches an index.
func RetiredWorkflowNames() []string {
	return []string{"test_pypi_publish.yml", "update_releases.yml"}
}

// TemplateWorkflow is the content the patch gives the template's workflow name.
func TemplateWorkflow(name string) ([]byte, error) {
	return templateWorkflows.ReadFile("template/" + name)
}

// TemplatePaths are the files TemplatePatchFor reads, relative to the Cloudcoil repository.
func TemplatePaths() []string {
	var out []string
	for _, n := range append(TemplateWorkflowNames(), RetiredWorkflowNames()...) {
		out = append(out, TemplateWorkflows+n)
	}
	return append(out, upstreams.TemplatePyproject)
}

// entryPointTable is the table the patch adds to the template's pyproject.toml: the
// cloudcoil_models entry point the template's comment promises, so Cloudcoil finds the
// models by entry point as well as by namespace.
const entryPointTable = "[project.entry-points.cloudcoil_models]\n" +
	"# Cloudcoil finds the generated models through this entry point (cloudcoil.resources).\n" +
	"{{ cookiecutter.module_name }} = \"cloudcoil.models.{{ cookiecutter.module_name }}\"\n"

// TemplatePatchFor is the change Shipyard asks of Cloudcoil's model template, as a patch
// of the template as it is (current: TemplatePaths' contents, by path; a path absent from
// the map is absent from the template), to apply at the repository's root with
// git apply -p1:
//
//   - ci.yml, pypi_publish.yml and shipyard_release.yml become Shipyard's model-ci,
//     publish-check and release wrappers;
//   - update_releases.yml and test_pypi_publish.yml are removed;
//   - pyproject.toml declares the cloudcoil_models entry point and bounds the runtime
//     requirement on Cloudcoil below the minor after the bound's (">=0.4.2" becomes
//     ">=0.4.2,<0.5"), so a release's lock refresh never reaches a new minor, which the
//     dependency check would refuse; a lower bound on an older minor is raised to the
//     bound's floor (">=0.4.0" becomes ">=0.5.8,<0.6": the migration onto the current
//     minor); a bound already written stays.
//
// Each changed file is one hunk holding the whole file, so the patch applies to exactly the
// template it was made from and to no other. A template that already holds every change
// gives the empty patch.
func TemplatePatchFor(current map[string][]byte, bound CloudcoilBound) (string, error) {
	var b strings.Builder
	for _, name := range TemplateWorkflowNames() {
		want, err := TemplateWorkflow(name)
		if err != nil {
			return "", err
		}
		path := TemplateWorkflows + name
		b.WriteString(fileDiff(path, current[path], want, current[path] != nil, true))
	}
	for _, name := range RetiredWorkflowNames() {
		path := TemplateWorkflows + name
		if old, ok := current[path]; ok {
			b.WriteString(fileDiff(path, old, nil, true, false))
		}
	}
	pyproject, ok := current[upstreams.TemplatePyproject]
	if !ok {
		return "", fmt.Errorf("%s: missing; is --source the Cloudcoil repository?", upstreams.TemplatePyproject)
	}
	patched, err := patchPyproject(pyproject, bound)
	if err != nil {
		return "", err
	}
	b.WriteString(fileDiff(upstreams.TemplatePyproject, pyproject, patched, true, true))
	return b.String(), nil
}

// CloudcoilBound is the Cloudcoil minor the template's requirement is bounded to and, when
// the requirement's lower bound is on an older minor, the release it is raised to.
type CloudcoilBound struct {
	Minor upstreams.Line
	Floor string
}

// patchPyproject adds the entry point table before [project.urls] (or at the end) unless
// the file declares one, and bounds the runtime requirement on Cloudcoil to the bound.
func patchPyproject(data []byte, bound CloudcoilBound) ([]byte, error) {
	out, err := upstreams.BoundRequirement(upstreams.TemplatePyproject, data, "cloudcoil", "project.dependencies", bound.Minor, bound.Floor)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(out, []byte("[project.entry-points.cloudcoil_models]")) {
		return out, nil
	}
	if i := bytes.Index(out, []byte("\n[project.urls]")); i >= 0 {
		return append(append(append([]byte{}, out[:i+1]...), entryPointTable+"\n"...), out[i+1:]...), nil
	}
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	return append(append(out, '\n'), entryPointTable...), nil
}

// fileDiff is a git diff of one file, the whole file in one hunk: from old (when existed) to
// new (when exists). Nothing when they are the same.
func fileDiff(path string, old, new []byte, existed, exists bool) string {
	if existed == exists && bytes.Equal(old, new) {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\n", path, path)
	from, to := "a/"+path, "b/"+path
	switch {
	case !existed:
		b.WriteString("new file mode 100644\n")
		from = "/dev/null"
	case !exists:
		b.WriteString("deleted file mode 100644\n")
		to = "/dev/null"
	}
	// git writes a tab after a name with spaces, so the name's end is unambiguous.
	fmt.Fprintf(&b, "--- %s\t\n+++ %s\t\n", from, to)
	oldLines, newLines := lines(old), lines(new)
	fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(len(oldLines)), hunkRange(len(newLines)))
	writeLines(&b, "-", oldLines, old)
	writeLines(&b, "+", newLines, new)
	return b.String()
}

// lines splits a file into its lines, without their newlines.
func lines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// hunkRange is a unified diff's start,count: an empty side starts at 0.
func hunkRange(n int) string {
	if n == 0 {
		return "0,0"
	}
	return fmt.Sprintf("1,%d", n)
}

// writeLines writes a side of a hunk, and git's marker when the file does not end with a
// newline.
func writeLines(b *strings.Builder, sign string, ls []string, data []byte) {
	for _, l := range ls {
		b.WriteString(sign + l + "\n")
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		b.WriteString("\\ No newline at end of file\n")
	}
}

// TemplatePatch reads the template of the Cloudcoil repository source and returns
// TemplatePatchFor of it. The bound is models/upstreams.json's cloudcoil section when the
// repository has the file (the current minor, decided at adoption, and its version as the
// floor), else the minor of the requirement's own lower bound.
func TemplatePatch(ctx context.Context, source *dagger.Directory) (string, error) {
	current := map[string][]byte{}
	for _, p := range TemplatePaths() {
		ok, err := source.Exists(ctx, p)
		if err != nil {
			return "", fmt.Errorf("looking for %s: %w", p, err)
		}
		if !ok {
			continue
		}
		text, err := source.File(p).Contents(ctx)
		if err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
		current[p] = []byte(text)
	}
	bound, err := templateBound(ctx, source, current[upstreams.TemplatePyproject])
	if err != nil {
		return "", err
	}
	patch, err := TemplatePatchFor(current, bound)
	if err != nil {
		return "", err
	}
	return patch, nil
}

// templateBound is the Cloudcoil minor the template's requirement is bounded to.
func templateBound(ctx context.Context, source *dagger.Directory, pyproject []byte) (CloudcoilBound, error) {
	ok, err := source.Exists(ctx, upstreams.FilePath)
	if err != nil {
		return CloudcoilBound{}, fmt.Errorf("looking for %s: %w", upstreams.FilePath, err)
	}
	if ok {
		file, err := ReadUpstreams(ctx, source)
		if err != nil {
			return CloudcoilBound{}, err
		}
		minor, err := upstreams.ParseLine(file.Cloudcoil.Minor)
		return CloudcoilBound{Minor: minor, Floor: file.Cloudcoil.Version}, err
	}
	minor, found, err := upstreams.RequirementMinor(upstreams.TemplatePyproject, pyproject, "cloudcoil")
	if err != nil {
		return CloudcoilBound{}, err
	}
	if !found {
		return CloudcoilBound{}, fmt.Errorf("%s: no requirement on cloudcoil with a lower bound >=X.Y.Z, and no %s to name the minor; write \"cloudcoil>=X.Y.Z\" in [project].dependencies", upstreams.TemplatePyproject, upstreams.FilePath)
	}
	return CloudcoilBound{Minor: minor}, nil
}
