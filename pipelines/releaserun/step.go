package releaserun

import (
	"errors"
	"fmt"

	"dagger/shipyard/pipelines/publish"
)

// Step names, as logs, errors and the release report use them.
const (
	StepPlan    = "release-plan"
	StepSource  = "source"
	StepBuild   = "build"
	StepVersion = "version-check"
	StepPush    = "push-by-digest"
	StepScan    = "scan-digests"
	StepAttest  = "attest"
	StepSign    = "sign"
	// StepVerifySigned verifies the signature and provenance with the signer's identity
	// before any tag moves.
	StepVerifySigned = publish.StepVerifySigned
	StepTag          = "tag"
	StepNotes        = "release-notes"
	StepGHRelease    = "publish-release"
)

// What the maintainer does next, by what a failure left behind.
const (
	// nextNothingPublished: before the push nothing exists outside the engine.
	nextNothingPublished = "nothing was published: re-run the release if the failure was transient; " +
		"otherwise fix it on dev and release a higher version (a release tag never moves)"
	// nextRerun: the step converges, so running the release again finishes the job.
	nextRerun = "re-run the release (or the failed job): what is already published is kept, nothing is duplicated"
	// nextHigherVersion: a published version never moves.
	nextHigherVersion = "a published version never moves: release a higher version"
	// nextPublishRelease: the images are out; only the GitHub release is missing.
	nextPublishRelease = "the images are published: re-run only the release's GitHub step " +
		"(dagger call release-publish-release --tag <tag>), which accepts a release created after all"
	// nextNeverEdited: releases are never edited afterwards.
	nextNeverEdited = "releases are never edited: leave this one, and fix mistakes in the notes of the next release"
)

// StepError is a failed step: which one, for which tag, what went wrong and what the
// maintainer does next.
type StepError struct {
	Step string
	Tag  string
	Err  error
	Next string
}

func (e *StepError) Error() string {
	msg := fmt.Sprintf("release %s: %s: %v", e.Tag, e.Step, e.Err)
	if e.Next != "" {
		msg += "\n  next: " + e.Next
	}
	return msg
}

func (e *StepError) Unwrap() error { return e.Err }

// stepErr wraps err for step, keeping the innermost StepError's advice when err carries
// one already (a step run inside another).
func stepErr(step, tag, next string, err error) error {
	if err == nil {
		return nil
	}
	var se *StepError
	if errors.As(err, &se) {
		return err
	}
	return &StepError{Step: step, Tag: tag, Err: err, Next: next}
}

// FailedStep returns the step an error of this package names, or "".
func FailedStep(err error) string {
	var se *StepError
	if errors.As(err, &se) {
		return se.Step
	}
	return ""
}
