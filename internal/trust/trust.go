// Package trust names the trust level of a job, which decides the cache volumes it may
// mount: pull-request work and publishing never share one.
package trust

// Level is the trust level of a job, and so of the cache volumes it may mount. A job that
// runs the repository's code as a pull request may change it (tests, hooks, builds, e2e) is
// Untrusted; a job whose output is published, or that gates a publish, is Release. The
// levels never share a cache volume: code of a pull request could otherwise plant a
// download (a wheel in uv's cache, a Trivy database) that a publishing step then uses.
type Level int

const (
	// Untrusted is the zero level, so a job that names no level gets the caches of
	// pull-request work and never those of a publishing step.
	Untrusted Level = iota
	// Release is the level of publishing steps: the release, publish-dev's scan,
	// publish-check and model-release.
	Release
)

// String is the level's name, the suffix of its cache volumes.
func (t Level) String() string {
	if t == Release {
		return "release"
	}
	return "untrusted"
}

// CacheVolumeName is the key of a cache volume at this level, e.g.
// shipyard-uv-cache-untrusted or shipyard-uv-cache-release.
func (t Level) CacheVolumeName(name string) string { return name + "-" + t.String() }

// UVCacheVolume is the base name of uv's download cache, which both systems' Python jobs
// mount at their level.
const UVCacheVolume = "shipyard-uv-cache"
