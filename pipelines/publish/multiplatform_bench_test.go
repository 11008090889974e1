package publish_test

import (
	"testing"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// BenchmarkMultiPlatformCost measures what building for linux/amd64 and linux/arm64
// adds to publishing both images: the wall time of the image steps on the engine double
// with a fixed latency per exec and build (sbomBenchLatency), one platform against two,
// and the registry writes per image from the local registry's log.
//
//	go test -vet=off -overlay=internal/testkit/daggerstandin/overlay.json -run '^$' -bench MultiPlatformCost ./pipelines/publish
func BenchmarkMultiPlatformCost(b *testing.B) {
	for _, multi := range []bool{false, true} {
		name := "one-platform"
		if multi {
			name = "two-platforms"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				w := publishtest.NewWorld(b)
				var v *env
				if multi {
					v = newPlatformEnv(b, w, engine.WithExecLatency(sbomBenchLatency))
				} else {
					v = newEnv(b, w, engine.WithExecLatency(sbomBenchLatency))
				}
				benchImageSteps(b, w, v, nil)
				b.StartTimer()
			}
		})
	}
}
