package demo

import (
	"errors"
	"fmt"
)

// What --demo allows of the release functions. The demo serves GitHub, PyPI and git, and no
// registry: the release runs as far as a dry run gets without one, and nothing that
// publishes runs at all.

// ErrRelease refuses, with --demo, a release function that would publish or needs a run
// before it.
var ErrRelease = errors.New("--demo runs the release only as a dry run: `dagger call --demo release --tag v0.11.0 --dry-run`; the release's workflow jobs (release-push, release-push-platform, release-assemble, release-scan, release-publish, release-publish-release) publish, or scan what a job before them pushed, and the demo serves no registry and has nowhere to publish to")

// Stop is where a demo release's dry run ends: before the release step named Before, for
// Reason.
type Stop struct {
	Before, Reason string
}

// releaseFunction is the one release function --demo runs.
const releaseFunction = "release"

// buildStep is the release's build step (pipelines/release.StepBuild; a test at the
// module's root holds them equal), the first that needs a registry.
const buildStep = "build"

// Release decides what --demo makes of a call of the release function fn (its CLI name):
// the release itself, as a dry run, stops before its build, which pulls the Dockerfiles'
// base images from a registry; every other call is refused with ErrRelease.
func Release(fn string, dryRun bool) (Stop, error) {
	if fn != releaseFunction || !dryRun {
		return Stop{}, ErrRelease
	}
	return Stop{Before: buildStep,
		Reason: "the build pulls the images' base images from a registry, which the demo does not serve"}, nil
}

// GitURL is where a demo release fetches the repository repo (owner/name): the demo's git
// host gitHost (Endpoints.Git), never the GitHub of the repository's name. A --git-url
// given is refused: it would fetch another repository than the one the gates checked.
func GitURL(given, gitHost, repo string) (string, error) {
	if given != "" {
		return "", fmt.Errorf("--demo fetches the demo repository from the demo's own git host: drop --git-url (or --demo)")
	}
	return gitHost + repo + ".git", nil
}
