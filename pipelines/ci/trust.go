package ci

import (
	"dagger.io/dagger"

	"dagger/shipyard/internal/trust"
)

// Cache volume base names; jobs mount them with their trust level and their pins in the
// name. Within a level and a set of pins every job and Python version shares a volume, so
// uv downloads a wheel once per level.
const (
	preCommitCacheVolume = "shipyard-pre-commit-cache"
	trivyCacheVolume     = "shipyard-trivy-cache"
	kubeconfigVolume     = "shipyard-e2e-kubeconfig"
)

// cacheVolume is the pipeline's cache volume of that base name, at its trust level and for
// its pinned images.
func (p *Pipeline) cacheVolume(name string) *dagger.CacheVolume {
	return p.Client.CacheVolume(p.Trust.CacheVolumeName(name, p.Pins))
}

// AtTrust returns a copy of the pipeline whose jobs mount the cache volumes of level t.
func (p *Pipeline) AtTrust(t trust.Level) *Pipeline {
	q := *p
	q.Trust = t
	return &q
}
