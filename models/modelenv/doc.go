// Package modelenv holds what the Cloudcoil model flows share (repository generation,
// repository CI, a model repository's release run and update-repos): the Env every graph
// runs in (the session's client, the pinned images, the Python container with uv, make),
// a repository read into memory (Tree), what a model repository's pyproject.toml and
// release lines declare, the generator and make-target checks, building and checking the
// distributions, and the PyPI lookups.
//
// The rules themselves are pure functions: allocation, fingerprints, the artifact checks
// and the publication decision live in package models. The graphs use the published SDK
// dagger.io/dagger with the images pinned in internal/pins. This package imports no flow
// package of its own.
package modelenv
