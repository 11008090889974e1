// Package release is tesk-core's release: release-plan (pipelines/releasegate), the
// source at the tagged commit, both builds, the version check inside them, the release
// notes, then publish's image steps (push by digest, scan those digests, attest, sign,
// verify, tag), and the GitHub release.
//
// Each flow is a declared list of steps run by internal/flow: Run (releaseSteps; its dry
// run is the runner's, with the dry-run bodies of release-plan, push-by-digest and
// scan-digests), and the release workflow's jobs (pushJobSteps, scanJobSteps,
// publishJobSteps, releaseJobSteps), which take the same steps apart; handoff.go carries
// what one job tells the next. Only the runner names a step: a step body gives a failure
// its own advice with flow.Advise. The image steps and their order come from publish.Steps, over publish.ImageState inside
// the release's state. A failure is a flow.Error naming the release, the step and what the
// maintainer does next; the report is derived from the state as far as the steps got.
//
// Files: state.go (the state and the release's own steps), run.go (Run, the dry run's digests, the
// report), jobs.go, plan.go (release-plan), source.go, build.go, version.go, scan.go (the
// dry run's scan), latest.go (the recheck before latest moves), notes.go, ghrelease.go,
// images.go (the image steps' settings), config.go, step.go (names and advice).
// Decisions are pure functions over plain data (PreviousRelease, PackageName,
// ReleaseDifference, StillLatestAmong, HigherFinalVersions); the steps fetch and act.
//
// Failing closed: a violated gate, a tag that moved, an image reporting another version, a
// version tag on another digest, a blocking finding or a release with other content stops
// the release.
package release
