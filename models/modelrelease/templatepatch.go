package modelrelease

import _ "embed"

// TemplatePatch returns the change Shipyard asks of Cloudcoil's model template, as a patch a
// maintainer applies at the root of the Cloudcoil repository (git apply -p1):
//
//   - .github/workflows/shipyard_release.yml: Shipyard's release of the repository's
//     lines, the model_version matrix rendered from versions in cookiecutter.yaml and
//     MODEL_VERSION_PREFIX from version_replacement_sed;
//   - update_releases.yml and test_pypi_publish.yml removed, so two release flows never
//     run and no prerelease reaches an index;
//   - ci.yml and pypi_publish.yml become Shipyard's model-ci and publish-check wrappers,
//     pypi_publish.yml still on `released` only (`published` fires for prereleases too);
//   - pyproject.toml declares the cloudcoil_models entry point the template's comment
//     promises, so Cloudcoil finds the models by entry point as well as by namespace, and
//     bounds the Cloudcoil requirement to its minor (>=0.4.0,<0.5), so a release's lock
//     refresh never reaches a new minor, which the dependency check would refuse.
//
// The workflows are wrapped in {% raw %}, so the template renders them as they are and
// update-repos, which pushes the whole rendered tree, keeps them.
func TemplatePatch() string { return templatePatch }

//go:embed cloudcoil-template.patch
var templatePatch string
