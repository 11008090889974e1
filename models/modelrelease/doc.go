// Package modelrelease is a Cloudcoil model repository's release run (Release, behind
// model-release): it selects the upstream of a release line, generates and checks the
// repository, plans the version (Decide), builds it, pushes the release commit, writes
// the draft and publishes it; and the PyPI publisher's pre-upload check of a release
// (PublishCheck), with the Cloudcoil dependency check both apply.
//
// The rules themselves are pure functions: allocation, fingerprints, the artifact checks
// and the publication decision live in package models; what this package adds over plain
// data (the release record, the allocation of a release run) is pure too and lives beside
// the steps that feed it. What it shares with the other model flows (the Env, the tree,
// the project and its release lines, the generator, the build) is in package modelenv.
//
// # The release record
//
// Every commit a release run pushes to release-<major>.<minor> carries
// .cloudcoil-release.json, and every draft or release it writes carries the same record in
// a hidden marker at the end of its body:
//
//	{"version": "1.31.5.2", "upstream": "1.31.5", "fingerprint": "sha256:…", "tree": "sha256:…"}
//
// fingerprint covers what ships (pyproject.toml, README, LICENSE and the package
// directory, version normalised away); tree covers every file of the commit. The next run
// compares its fingerprint with the record of the last published release of its upstream
// (the body marker, else the file at the release's tag): equal means nothing to release.
// The record on the release branch's head also reserves its version until it is
// published, so concurrent runs never take the same number for different contents.
//
// # Concurrency
//
// GitHub accepts any number of drafts with one tag, so a draft cannot be a lock. The only
// compare-and-swap GitHub offers is a ref write: creating a branch fails when it exists,
// and moving one without force fails unless the new commit descends from the current
// head. A release run builds its commit on the head it read and moves the branch without
// force; the run that loses re-reads everything and plans again, converging on the
// winner's commit when the generation is the same. Drafts then follow the branch: the
// draft of a version is pinned to the newest commit recording that version, duplicates
// keep the oldest, and a run checks the branch again after writing a draft.
package modelrelease
