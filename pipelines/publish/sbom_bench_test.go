package publish_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// sbomBenchLatency is the engine double's time per exec and build, as in bench/cigraph.
const sbomBenchLatency = 250 * time.Millisecond

// BenchmarkSBOMCost measures what the attest-sbom step adds to publishing both images: the
// wall time of the image steps on the engine double with a fixed latency per exec, with and
// without the step, and the registry writes per image (referrer manifests, blobs, fallback
// tag) from the local registry's log.
//
//	go test -vet=off -overlay=internal/testkit/daggerstandin/overlay.json -run '^$' -bench SBOMCost ./pipelines/publish
func BenchmarkSBOMCost(b *testing.B) {
	for _, withSBOM := range []bool{false, true} {
		name := "without-sbom"
		if withSBOM {
			name = "with-sbom"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				w := publishtest.NewWorld(b)
				v := newEnv(b, w, engine.WithExecLatency(sbomBenchLatency))
				var drop func(flow.Step[publish.ImageState]) bool
				if !withSBOM {
					drop = func(st flow.Step[publish.ImageState]) bool { return st.Name == publish.StepSBOM }
				}
				benchImageSteps(b, w, v, drop)
				b.StartTimer()
			}
		})
	}
}

// benchImageSteps runs the declared image steps once on v (less those drop names) and
// reports the wall time, the registry writes per image, the execs and the longest branch.
// The timer runs only around the steps.
func benchImageSteps(b *testing.B, w *publishtest.World, v *env, drop func(flow.Step[publish.ImageState]) bool) {
	b.Helper()
	s := &publish.ImageState{Target: v.target, Signing: v.sign, Scanner: v.scanner, Built: v.images,
		Ignore: []byte{}, ReuseTag: "sha-" + sha, Tags: []string{"sha-" + sha, "dev"}}
	s.Signing.Provenance.BaseImages = map[string][]string{}
	steps := publish.Steps(publish.Advice{}, func(s *publish.ImageState) *publish.ImageState { return s })
	if drop != nil {
		steps = slices.DeleteFunc(steps, drop)
	}
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
}
