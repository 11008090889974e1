package release

import (
	"dagger/shipyard/internal/functions"
	"dagger/shipyard/pipelines/publish"
)

// Step names, as logs, errors and the release report use them. The image steps are
// publish's, in publish.Steps' order.
const (
	StepPlan              = functions.ReleasePlan
	StepSource            = "source"
	StepBuild             = "build"
	StepVersion           = "version-check"
	StepPush              = publish.StepPush
	StepScan              = publish.StepScan
	StepAttest            = publish.StepAttest
	StepSBOM              = publish.StepSBOM
	StepSign              = publish.StepSign
	StepVerifySigned      = publish.StepVerifySigned
	StepStoreAttestations = publish.StepStoreAttestations
	StepTag               = publish.StepTag
	// StepCheckHandoff checks, in the scan and publish jobs, the handoff the previous
	// jobs printed against the registry and the plan.
	StepCheckHandoff = "check-handoff"
	// StepDescribe reads the images' recipes for the publish job, which builds nothing.
	StepDescribe  = "describe"
	StepNotes     = "release-notes"
	StepGHRelease = "publish-release"
)

// What the maintainer does next, by what a failure left behind.
const (
	// nextNothingPublished: before the push nothing exists outside the engine.
	nextNothingPublished = "nothing was published: re-run the release if the failure was transient; " +
		"otherwise fix it on dev and release a higher version (a release tag never moves)"
	// nextRerun: the step converges, so running the release again finishes the job.
	nextRerun = "re-run the release (or the failed job): what is already published is kept, nothing is duplicated"
	// nextUntagged: the image steps before the tags.
	nextUntagged = "nothing was tagged yet: " + nextRerun
	// nextHigherVersion: a published version never moves.
	nextHigherVersion = "a published version never moves: release a higher version"
	// nextPublishRelease: the images are out; only the GitHub release is missing.
	nextPublishRelease = "the images are published: re-run only the release's GitHub step " +
		"(dagger call release-publish-release --tag <tag>), which accepts a release created after all"
	// nextNeverEdited: releases are never edited afterwards.
	nextNeverEdited = "releases are never edited: leave this one, and fix mistakes in the notes of the next release"
	// nextScan: findings need a new commit (an update or an accepted finding), hence a
	// higher version; a scanner that failed to run can be re-run.
	nextScan = "nothing was tagged: if Trivy failed to run, re-run the release; if it found CRITICAL or HIGH " +
		"vulnerabilities with a fix, update the packages (or accept a finding in .trivyignore.yaml with a statement " +
		"and an expiry) on dev and release a higher version"
)

// imageAdvice words publish's advice for a release.
var imageAdvice = publish.Advice{Untagged: nextUntagged, Scan: nextScan, Moved: nextHigherVersion, Tag: nextRerun}
