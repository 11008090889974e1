// Package models holds Shipyard's rules for Cloudcoil model packages: upstream
// updates, generation, validation and release.
//
// Everything here is a pure function over plain data (version lists, file
// trees as fs.FS, archive bytes, changed paths): the Dagger and GitHub code
// that gathers that data calls these functions and acts on their answers.
//
//   - Allocate picks the <upstream>.<packaging> version of a release, reusing a
//     draft reservation when one is still ahead of everything published.
//   - Fingerprint hashes the generated code and metadata, ignoring the package
//     version, so an unchanged generation is not released again.
//   - ReadWheel, ReadSdist and CheckArtifacts are the check-artifacts rules.
//   - ChangedIntegrations and ChangedUpstreamEntries select what a pull request
//     must validate.
//   - ReleaseBranch and Publication decide where and how far a release goes.
package models
