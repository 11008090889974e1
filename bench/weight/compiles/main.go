// Command compiles reads the action graph `go build -debug-actiongraph` writes and prints
// what the build compiled, by Go module: packages, compile seconds (summed over packages,
// so more than the wall time when they ran in parallel) and the longest single package,
// which bounds the wall time from below whatever the core count. bench/weight.sh runs it
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
	costs, err := read(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "compiles: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	report(os.Stdout, costs)
}

// read sums the compile actions that ran (those with a command; the cache served the rest)
// by module.
func read(r io.Reader) ([]moduleCost, error) {
	var actions []action
	if err := json.NewDecoder(r).Decode(&actions); err != nil {
		return nil, fmt.Errorf("reading the action graph: %w", err)
	}
	byModule := map[string]*moduleCost{}
	for _, a := range actions {
		if a.Mode != "build" || len(a.Cmd) == 0 || a.TimeStart.IsZero() || a.TimeDone.IsZero() {
			continue
		}
		m := moduleOf(a.Package)
		c := byModule[m]
		if c == nil {
			c = &moduleCost{module: m}
			byModule[m] = c
		}
		d := a.TimeDone.Sub(a.TimeStart)
		c.packages++
		c.total += d
		if d > c.longest {
			c.longest, c.slowest = d, a.Package
		}
	}
	costs := make([]moduleCost, 0, len(byModule))
	for _, c := range byModule {
		costs = append(costs, *c)
	}
	sort.Slice(costs, func(i, j int) bool {
		if costs[i].total != costs[j].total {
			return costs[i].total > costs[j].total
		}
		return costs[i].module < costs[j].module
	})
	return costs, nil
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
