package ci

import (
	"context"
	"strings"
	"testing"

	"dagger.io/dagger"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/flowexecs"
)

// Trivy gets every built image, each platform's too, as a tarball whose layers are all gzip:
// with Dagger's default (each layer as its blob is) an image on a base with uncompressed
// layers reaches Trivy with mixed layers, and Trivy's tarball reader fails on them.
func TestScanHandsTrivyGzipLayers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		platforms []dagger.Platform
		reports   []string
	}{
		{"engine platform", nil, []string{"taskmaster", "filer"}},
		{"each platform", []dagger.Platform{"linux/amd64", "linux/arm64"},
			[]string{"taskmaster-linux-amd64", "taskmaster-linux-arm64", "filer-linux-amd64", "filer-linux-arm64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			p, e := newPipeline(t, nil)
			p.Platforms = tc.platforms
			for _, r := range tc.reports {
				e.OnFile(engine.FileRule{Path: "/out/" + r + ".json", Contents: cleanReport})
				e.OnFile(engine.FileRule{Path: "/out/" + r + ".sarif", Contents: flowexecs.CleanSARIF})
			}
			images, err := p.Images(ctx, "0.11.0")
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := p.Scan(ctx, images); err != nil {
				t.Fatal(err)
			}
			scans := e.Graph().ExecsWith("trivy image")
			if len(scans) != len(tc.reports) {
				t.Fatalf("%d trivy scans, want %d", len(scans), len(tc.reports))
			}
			for _, ex := range scans {
				input := ""
				for i, a := range ex.Args {
					if a == "--input" && i+1 < len(ex.Args) {
						input = ex.Args[i+1]
					}
				}
				var source string
				for _, m := range ex.Mounts {
					if m.Path == input && m.Kind == "withFile" {
						source = m.Source
					}
				}
				if input == "" || source == "" {
					t.Fatalf("trivy scans no tarball it is given: args %v, mounts %+v", ex.Args, ex.Mounts)
				}
				if !strings.HasSuffix(source, `.asTarball(forcedCompression:"Gzip")`) {
					t.Errorf("%s comes from %s, want a tarball with every layer forced to gzip", input, source)
				}
			}
		})
	}
}
