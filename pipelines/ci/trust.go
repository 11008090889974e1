package ci

import "dagger.io/dagger"

// Trust is the trust level of a job, and so of the cache volumes it may mount. A job that
// runs the repository's code as a pull request may change it (tests, hooks, builds, e2e) is
// Untrusted; a job whose output is published, or that gates a publish, is Release. The
// levels never share a cache volume: code of a pull request could otherwise plant a
// download (a wheel in uv's cache, a Trivy database) that a publishing step then uses.
type Trust int

const (
	// Untrusted is the zero level, so a job that names no level gets the caches of
	// pull-request work and never those of a publishing step.
	Untrusted Trust = iota
	// Release is the level of publishing steps: the release, publish-dev's scan,
	// publish-check and model-release.
	Release
)

// String is the level's name, the suffix of its cache volumes.
func (t Trust) String() string {
	if t == Release {
		return "release"
	}
	return "untrusted"
}

// CacheVolumeName is the key of a cache volume at this level, e.g.
// shipyard-uv-cache-untrusted or shipyard-uv-cache-release.
func (t Trust) CacheVolumeName(name string) string { return name + "-" + t.String() }

// Cache volume base names; jobs mount them with their trust level's suffix. Within a level
// every job and Python version shares a volume, so uv downloads a wheel once per level.
const (
	UVCacheVolume        = "shipyard-uv-cache"
	preCommitCacheVolume = "shipyard-pre-commit-cache"
	trivyCacheVolume     = "shipyard-trivy-cache"
	kubeconfigVolume     = "shipyard-e2e-kubeconfig"
)

// cacheVolume is the pipeline's cache volume of that base name, at its trust level.
func (p *Pipeline) cacheVolume(name string) *dagger.CacheVolume {
	return p.Client.CacheVolume(p.Trust.CacheVolumeName(name))
}

// AtTrust returns a copy of the pipeline whose jobs mount the cache volumes of level t.
func (p *Pipeline) AtTrust(t Trust) *Pipeline {
	q := *p
	q.Trust = t
	return &q
}
