// Package releaserun is tesk-core's release flow after release-plan: it builds both images
// at the tagged commit, checks the version inside them, pushes them by digest, scans those
// digests, attests and signs them, tags them, and creates the GitHub release.
//
// One step, one file: each step (source.go, build.go, version.go, push.go, scan.go,
// attest.go, sign.go, tag.go, notes.go, ghrelease.go) is a function with a name used in
// logs and errors (Step*), looks first at what exists and converges, and can run alone, as
// the release workflow's separate jobs do (handoff.go carries what one job tells the next),
// or chained by Run. Decisions are pure functions over plain data (PreviousRelease,
// PackageName, CompareRelease, StillLatestAmong, CheckVersionTags); the steps only fetch
// that data and act on it.
//
// Failing closed: a violated gate, a tag that moved, an image reporting another version, a
// version tag on another digest, a blocking finding or a release with other content stops
// the release, and every error says which step failed and what the maintainer does next.
package releaserun
