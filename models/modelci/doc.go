// Package modelci is the repository CI of a Cloudcoil model repository, as the template's
// own ci.yml runs it (RepositoryCI, behind model-ci): install, the make targets on every Python the
// repository supports (PythonVersions), the artifact checks, and the check of the core
// extras a model package declares against PyPI (CoreExtrasOnPyPI).
//
// The artifact build and checks themselves, and the release lines, are shared with the
// other model flows in package modelenv.
package modelci
