package models

// PublishInputs are the facts a model release run decides on.
type PublishInputs struct {
	// DryRun is the dispatch input dry_run; manual runs default to it.
	DryRun bool
	// PublishFlag is the dispatch input publish, asking to publish this run.
	PublishFlag bool
	// AutoPublish is the repository variable AUTO_PUBLISH_MODELS=true.
	AutoPublish bool
	// ChecksPassed: generation, lint, type checks, tests and artifact checks
	// all passed.
	ChecksPassed bool
	// MainAdvanced: main moved since the run started, so this generation may
	// already be outdated.
	MainAdvanced bool
	// FingerprintUnchanged: the generation matches the last release's
	// fingerprint.
	FingerprintUnchanged bool
}

// PublishAction is how far a run goes.
type PublishAction int

const (
	// Stop writes nothing and fails the run: see the decision's reason.
	Stop PublishAction = iota
	// Nothing: the generation is already released; the run succeeds as a no-op.
	Nothing
	// DryRun builds and validates only: no push, no draft, no release.
	DryRun
	// Draft pushes the release branch and creates or updates the draft
	// release pinned to that commit.
	Draft
	// Publish does what Draft does, then publishes the draft, which starts the
	// PyPI trusted publisher.
	Publish
)

func (a PublishAction) String() string {
	switch a {
	case Stop:
		return "stop"
	case Nothing:
		return "nothing"
	case DryRun:
		return "dry-run"
	case Draft:
		return "draft"
	case Publish:
		return "publish"
	}
	return "unknown"
}

// PublishDecision is an action and why, for the run's plan and log.
type PublishDecision struct {
	Action PublishAction
	Reason string
}

// Publication decides how far a model release run goes. In order:
// failed checks stop the run (a failed generation never publishes, and is
// reported even when nothing would be released); an unchanged fingerprint is a
// no-op; a dry run writes nothing, whatever publish or AUTO_PUBLISH_MODELS
// say; main having advanced stops before anything is pushed, so an older
// generation never replaces a newer one; then publish=true or
// AUTO_PUBLISH_MODELS publishes, and otherwise the run leaves a draft.
//
// Stop is the zero value, so a decision never made refuses to publish. The
// flow decides again with a fresh MainAdvanced just before publishing the
// draft: a Stop then leaves the draft unpublished.
func Publication(in PublishInputs) PublishDecision {
	switch {
	case !in.ChecksPassed:
		return PublishDecision{Stop, "generation or artifact checks failed"}
	case in.FingerprintUnchanged:
		return PublishDecision{Nothing, "fingerprint matches the last release; nothing to release"}
	case in.DryRun:
		return PublishDecision{DryRun, "dry run: built and validated, nothing pushed or released"}
	case in.MainAdvanced:
		return PublishDecision{Stop, "main advanced during the run; rerun from the current main"}
	case in.PublishFlag:
		return PublishDecision{Publish, "publish requested for this run"}
	case in.AutoPublish:
		return PublishDecision{Publish, "AUTO_PUBLISH_MODELS is true"}
	}
	return PublishDecision{Draft, "drafts are the default; publish the draft or set AUTO_PUBLISH_MODELS"}
}
