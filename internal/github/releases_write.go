package github

// PinnedRelease is a release with the commitish it targets. For a draft that is where its
// tag will be created on publication, so a flow that pins drafts to exact commits (model
// releases) needs it to tell its own draft from a stale one.
type PinnedRelease struct {
	Release
	TargetCommitish string
}

// ReleaseEdit lists the fields of a release to change; nil fields stay as they are.
type ReleaseEdit struct {
	TagName         *string
	TargetCommitish *string
	Name            *string
	Body            *string
	// Draft false publishes a draft; GitHub then creates its tag at the target when the
	// tag does not exist yet.
	Draft *bool
	// MakeLatest is "true", "false" or "legacy"; empty leaves GitHub's default.
	MakeLatest string
}
