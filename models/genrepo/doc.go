// Package genrepo generates a Cloudcoil model repository from the Cloudcoil repository:
// rendering an integration's repository from the shared cookiecutter template and
// running the generator in it (Repo, behind gen-repo), reading the generated tree back
// with its modes (ReadGenerated), the Cloudcoil template patch (TemplatePatch) and the
// validation of the integrations a pull request changes (ValidateModels, with the --base
// lookup of BaseRefs).
//
// It uses what the model flows share from package modelenv: the Env, the generator and
// its checks, the artifact checks.
package genrepo
