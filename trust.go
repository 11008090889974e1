package main

import (
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/models/versions"
)

// modelVersionsVolume is the ETag cache volume of model-versions, at its trust level and
// for the pins whose Python image reads and writes it: a caller's own image gets its own
// volume, so it can plant no answer that a run with the default pins replays.
func modelVersionsVolume(p pins.Pins) string {
	level, err := trust.Of("model-versions")
	if err != nil { // the table names every function (TestTrustLevelsKeepCachesApart)
		level = trust.Release
	}
	return level.CacheVolumeName(versions.DefaultCacheVolume, p)
}
