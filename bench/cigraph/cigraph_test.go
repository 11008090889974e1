// Package cigraph measures how well the CI graph uses concurrency: `ci` on the tesk-core
// fixture through the engine double with a fixed latency per exec and build. The best any
// scheduler can do is the longest dependency chain (the critical path) times the latency;
// the goal is a wall time within 1.15 of that.
//
//	go test -run '^$' -bench CIGraph ./bench/cigraph
package cigraph

import (
	"context"
	"testing"
	"time"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/pipelines/ci"
)

const latency = 250 * time.Millisecond

func BenchmarkCIGraph(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := engine.New(b, engine.WithExecLatency(latency))
		c := e.Client(context.Background())
		p := ci.New(c, c.Host().Directory(fixtures.TeskCore(b, nil)))
		for _, img := range []string{"taskmaster", "filer"} {
			e.OnFile(engine.FileRule{Path: "/out/" + img + ".json", Contents: `{"SchemaVersion": 2, "Results": []}`})
		}
		b.StartTimer()
		start := time.Now()
		if _, _, err := p.Run(context.Background(), ci.Options{PRTitle: "feat: bench"}); err != nil {
			b.Fatal(err)
		}
		wall := time.Since(start)
		b.StopTimer()
		g := e.Graph()
		nodes := len(g.Builds())
		for _, x := range g.Execs() {
			nodes += x.Runs
		}
		longest := time.Duration(g.CriticalPath()) * latency
		sum := time.Duration(nodes) * latency
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(sum.Seconds(), "sum-of-latencies-s")
		b.ReportMetric(longest.Seconds(), "longest-branch-s")
		b.ReportMetric(wall.Seconds()/longest.Seconds(), "wall/longest")
		b.StartTimer()
	}
}
