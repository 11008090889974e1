package demo

import (
	"errors"
	"fmt"
	"strings"

	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/trust"
)

// What --demo allows. The demo serves GitHub, PyPI and git, and no registry or Sigstore:
// a function that writes runs only as its dry run (Writes, for every function, from its
// declaration), and the release's dry run runs as far as it gets without a registry
// (Release).

// ErrWrites refuses, with --demo, a call of a function that writes outside the engine.
var ErrWrites = errors.New("--demo runs nothing that writes")

// Writes refuses --demo for a call of the function fn (its CLI name) whose trust rule r
// (its declaration in internal/functions) says it writes outside the engine, unless the
// call is its dry run (--dry-run, --check), which writes nothing. --demo changes where a
// call reads from, not where it writes: such a call would push to the real registry, sign
// with the real Sigstore or write to the real GitHub, with whatever credentials it holds.
// The module's boundary asks this once, for every function, before anything runs.
func Writes(fn string, r trust.Rule, dryRun bool) error {
	if !r.Writes() || dryRun {
		return nil
	}
	needs := make([]string, len(r.Needs))
	for i, c := range r.Needs {
		needs[i] = string(c)
	}
	held := strings.Join(needs, ", ")
	if n := len(needs); n > 1 {
		held = strings.Join(needs[:n-1], ", ") + " and " + needs[n-1]
	}
	return fmt.Errorf("%s: %w: it writes with %s (its declaration in internal/functions), and the demo serves no registry, Sigstore or GitHub to write to, so it would write to the real ones; "+
		"drop --demo to run it for real, or run it as a dry run (--dry-run or --check) where it has one", fn, ErrWrites, held)
}

// ErrRelease refuses, with --demo, a call of a release function that writes nothing yet
// needs a run before it; Writes refuses those that write first.
var ErrRelease = errors.New("--demo runs the release only as a dry run: `dagger call --demo release --tag v0.11.0 --dry-run`; its workflow jobs publish, or scan what a job before them pushed (release-scan), and the demo serves no registry and has nowhere to publish to")

// Stop is where a demo release's dry run ends: before the release step named Before, for
// Reason.
type Stop struct {
	Before, Reason string
}

// releaseFunction is the one release function --demo runs.
const releaseFunction = functions.Release

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
