package publish_test

import (
	"context"
	"testing"
	"time"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/pipelines/publish"
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
				s := &publish.Images{Target: v.target, Sign: v.sign, Pipeline: v.p, Built: v.images, Workdir: b.TempDir(),
					Ignore: []byte{}, ReuseTag: "sha-" + sha, Tags: []string{"sha-" + sha, "dev"}}
				s.Sign.Provenance.BaseImages = map[string][]string{}
				steps := publish.Steps("bench", publish.Advice{}, func(s *publish.Images) *publish.Images { return s })
				before := len(w.Registry.Writes())
				b.StartTimer()
				start := time.Now()
				if _, err := flow.Run(context.Background(), flow.Runner{Flow: "bench"}, steps, s); err != nil {
					b.Fatal(err)
				}
				wall := time.Since(start)
				b.StopTimer()
				writes := w.Registry.Writes()[before:]
				b.ReportMetric(wall.Seconds(), "wall-s")
				b.ReportMetric(float64(len(writes))/float64(len(v.images)), "writes/image")
				b.ReportMetric(float64(len(v.e.Graph().Execs())), "execs")
				b.ReportMetric(float64(v.e.Graph().CriticalPath())*sbomBenchLatency.Seconds(), "longest-branch-s")
				b.StartTimer()
			}
		})
	}
}
