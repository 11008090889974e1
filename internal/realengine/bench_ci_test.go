//go:build realengine

package realengine

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/testkit/teskreal"
)

// BenchmarkTeskCoreCI measures ci on tesk-core's real code on the real engine
// (TestTeskCoreRealCI's setup), in one run: the wall time of a first ci against its longest
// job (the jobs run concurrently, so the longest one bounds the run), then the same ci
// after a one-line change in src/, and which jobs ran again. A job whose inputs did not
// change (the docs, which read docs/ alone; the PR title) must come from the engine's
// cache. The module is loaded first, so neither ci pays for its load; the images the jobs
// start from are the suite's, pulled before.
//
//	REALENGINE_BENCH=TeskCoreCI bash .ci/realengine run   # or bash bench/ci-realengine.sh
func BenchmarkTeskCoreCI(b *testing.B) {
	img := pythonImage(b)
	// A comment unique to this run in pyproject.toml, which every job reads: the first ci
	// finds nothing of this project in the engine's cache, whatever ran before.
	pyproject, err := os.ReadFile(filepath.Join(teskreal.Tree(b), "pyproject.toml"))
	if err != nil {
		b.Fatal(err)
	}
	src := teskRealProject(b, map[string]string{
		"containers/taskmaster.Dockerfile": engineDockerfile(img, "taskmaster"),
		"containers/filer.Dockerfile":      engineDockerfile(img, "filer"),
		"pyproject.toml":                   fmt.Sprintf("# bench run %d\n%s", time.Now().UnixNano(), pyproject),
	})
	pins := []string{"--pin", "python-3.13=" + img, "--pin", "uv=" + img, "--pin", "go=" + img,
		"--pin", "trivy=" + trivyImage, "--pin", "k3s=" + img}
	call(b, nil, append(append([]string{"--source", src}, pins...), "pr-title", "--title", "fix(filer): retry uploads")...)
	run := func(label string) (time.Duration, map[string]time.Duration, int) {
		out := b.TempDir()
		start := time.Now()
		r := cli(b, nil, "", append(append([]string{"call", "--source", src}, pins...),
			"ci", "--python", "3.13", "--pr-title", "fix(filer): retry uploads", "export", "--path", out)...)
		wall := time.Since(start)
		if r.err != nil {
			b.Fatalf("%s ci: %s", label, r)
		}
		summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
		if err != nil {
			b.Fatal(err)
		}
		return wall, jobDurations(b, string(summary)), len(ranExecs.FindAllString(r.stderr, -1))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		first, firstJobs, firstExecs := run("first")
		path := filepath.Join(src, "src", "tesk_core", "path.py")
		old, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		write(b, path, string(old)+"# a one-line change\n")
		second, secondJobs, secondExecs := run("second")
		write(b, path, string(old))

		longest := time.Duration(0)
		for _, d := range firstJobs {
			longest = max(longest, d)
		}
		var names []string
		for n := range firstJobs {
			names = append(names, n)
		}
		sort.Strings(names)
		var table strings.Builder
		fmt.Fprintf(&table, "| job | first ci | after a one-line change in src/ |\n|---|---|---|\n")
		for _, n := range names {
			fmt.Fprintf(&table, "| %s | %.1f s | %.1f s |\n", n, firstJobs[n].Seconds(), secondJobs[n].Seconds())
		}
		b.Logf("first ci %.1f s (longest job %.1f s, %d execs run); second ci %.1f s (%d execs run)\n%s",
			first.Seconds(), longest.Seconds(), firstExecs, second.Seconds(), secondExecs, table.String())
		b.ReportMetric(first.Seconds(), "first-ci-s")
		b.ReportMetric(longest.Seconds(), "longest-job-s")
		b.ReportMetric(first.Seconds()/longest.Seconds(), "wall/longest")
		b.ReportMetric(second.Seconds(), "second-ci-s")
		b.ReportMetric(second.Seconds()/first.Seconds(), "second/first")
	}
}

// ranExecs are the commands the engine ran rather than took from its cache, as
// --progress=plain reports them.
var ranExecs = regexp.MustCompile(`(?m)withExec\x1b\[0m\x1b\[32m DONE`)

// jobDurations reads each job's duration from ci's summary.md table.
func jobDurations(tb testing.TB, summary string) map[string]time.Duration {
	tb.Helper()
	out := map[string]time.Duration{}
	for _, line := range strings.Split(summary, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || strings.TrimSpace(cells[1]) == "job" || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		d, err := time.ParseDuration(strings.TrimSpace(cells[3]))
		if err != nil {
			tb.Fatalf("summary.md: %q: %v", line, err)
		}
		out[strings.TrimSpace(cells[1])] = d
	}
	if len(out) == 0 {
		tb.Fatalf("summary.md has no job:\n%s", summary)
	}
	return out
}
