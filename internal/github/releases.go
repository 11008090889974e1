package github

import (
	"time"
)

// Release is a GitHub release.
type Release struct {
	ID         int64
	TagName    string
	Name       string
	Body       string
	Draft      bool
	Prerelease bool
	URL        string // the release's page on GitHub
	CreatedAt  time.Time
}

// NewRelease describes a release to create.
type NewRelease struct {
	TagName         string
	TargetCommitish string
	Name            string
	Body            string
	Draft           bool
	Prerelease      bool
	// MakeLatest is "true", "false" or "legacy" (GitHub's string enum); empty leaves
	// GitHub's default.
	MakeLatest string
}
