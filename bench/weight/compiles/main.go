// Command compiles reads the action graph `go build -debug-actiongraph` writes and prints
// what the build compiled, by Go module: packages, compile seconds (summed over packages,
// so more than the wall time when they ran in parallel) and the longest single package,
// and the critical path: the longest chain of compiles through the imports, which bounds the
// wall time from below whatever the core count. bench/weight.sh runs it
// on Shipyard's module build after the bare program's build filled the cache, so it
// lists only what Shipyard adds to a bare module's load.
//
//	go run ./bench/weight/compiles GRAPH.json
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// action is the part of one action-graph entry this command reads.
type action struct {
	ID        int
	Deps      []int
	Mode      string
	Package   string
	TimeStart time.Time
	TimeDone  time.Time
	Cmd       []string
}

// moduleCost is what one Go module's packages cost the build.
type moduleCost struct {
	module   string
	packages int
	total    time.Duration
	longest  time.Duration
	slowest  string
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: compiles GRAPH.json")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "compiles:", err)
		os.Exit(1)
	}
	defer f.Close()
	actions, err := decode(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "compiles: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	report(os.Stdout, byModule(actions))
	fmt.Println()
	path, total := criticalPath(actions)
	fmt.Printf("critical path: %.1f s of compiles, each waiting for the one before\n", total.Seconds())
	for _, a := range path {
		fmt.Printf("  %5.1f s  %s\n", compileTime(a).Seconds(), a.Package)
	}
}

func decode(r io.Reader) ([]action, error) {
	var actions []action
	if err := json.NewDecoder(r).Decode(&actions); err != nil {
		return nil, fmt.Errorf("reading the action graph: %w", err)
	}
	return actions, nil
}

// compileTime is how long an action compiled: zero when the cache served it or when it is
// not a compile.
func compileTime(a action) time.Duration {
	if a.Mode != "build" || len(a.Cmd) == 0 || a.TimeStart.IsZero() || a.TimeDone.IsZero() {
		return 0
	}
	return a.TimeDone.Sub(a.TimeStart)
}

// criticalPath is the chain of compiles, each depending on the next, with the largest sum
// of compile times, from the last compile to the first (those that took no time left out).
func criticalPath(actions []action) ([]action, time.Duration) {
	byID := make(map[int]action, len(actions))
	for _, a := range actions {
		byID[a.ID] = a
	}
	longest := map[int]time.Duration{}
	next := map[int]int{}
	done := map[int]bool{}
	var visit func(id int) time.Duration
	visit = func(id int) time.Duration {
		if done[id] {
			return longest[id]
		}
		done[id] = true // the action graph has no cycles; this also ends a malformed one
		a := byID[id]
		best, bestDep := time.Duration(0), -1
		for _, d := range a.Deps {
			if l := visit(d); l > best {
				best, bestDep = l, d
			}
		}
		longest[id] = compileTime(a) + best
		next[id] = bestDep
		return longest[id]
	}
	start, total := -1, time.Duration(0)
	for _, a := range actions {
		if l := visit(a.ID); l > total || start < 0 {
			start, total = a.ID, l
		}
	}
	var path []action
	for id := start; id >= 0; id = next[id] {
		if a := byID[id]; compileTime(a) > 0 {
			path = append(path, a)
		}
	}
	return path, total
}

// byModule sums the compile actions that ran (those with a command; the cache served the
// rest) by module.
func byModule(actions []action) []moduleCost {
	costs := map[string]*moduleCost{}
	for _, a := range actions {
		d := compileTime(a)
		if d == 0 {
			continue
		}
		m := moduleOf(a.Package)
		c := costs[m]
		if c == nil {
			c = &moduleCost{module: m}
			costs[m] = c
		}
		c.packages++
		c.total += d
		if d > c.longest {
			c.longest, c.slowest = d, a.Package
		}
	}
	sorted := make([]moduleCost, 0, len(costs))
	for _, c := range costs {
		sorted = append(sorted, *c)
	}
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].total != sorted[j].total {
			return sorted[i].total > sorted[j].total
		}
		return sorted[i].module < sorted[j].module
	})
	return sorted
}

// moduleOf names a package's module by its import path: the standard library, Shipyard's own
// packages, or the first three path elements of a hosted module (github.com/owner/name),
// else the first two; close enough to group a build's cost, without asking the go command.
func moduleOf(pkg string) string {
	switch {
	case pkg == "main" || strings.HasPrefix(pkg, "dagger/shipyard"):
		return "dagger/shipyard"
	case !strings.Contains(strings.SplitN(pkg, "/", 2)[0], "."):
		return "std"
	}
	parts := strings.Split(pkg, "/")
	n := 2
	if parts[0] == "github.com" || parts[0] == "go.opentelemetry.io" || parts[0] == "golang.org" {
		n = 3
	}
	if len(parts) < n {
		n = len(parts)
	}
	return strings.Join(parts[:n], "/")
}

func report(w io.Writer, costs []moduleCost) {
	var packages int
	var total time.Duration
	fmt.Fprintf(w, "%-45s %8s %10s  %s\n", "module", "packages", "compile s", "slowest package")
	for _, c := range costs {
		fmt.Fprintf(w, "%-45s %8d %10.1f  %s (%.1f s)\n", c.module, c.packages, c.total.Seconds(), c.slowest, c.longest.Seconds())
		packages += c.packages
		total += c.total
	}
	fmt.Fprintf(w, "%-45s %8d %10.1f\n", "all", packages, total.Seconds())
}
