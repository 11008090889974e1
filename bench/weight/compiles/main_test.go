package main

import (
	"strings"
	"testing"
	"time"
)

func TestModuleOf(t *testing.T) {
	for _, tc := range []struct{ pkg, want string }{
		{"main", "dagger/shipyard"},
		{"dagger/shipyard/internal/registry", "dagger/shipyard"},
		{"encoding/xml", "std"},
		{"github.com/google/go-github/v84/github", "github.com/google/go-github"},
		{"go.opentelemetry.io/otel/trace", "go.opentelemetry.io/otel/trace"},
		{"gopkg.in/yaml.v3", "gopkg.in/yaml.v3"},
		{"dagger.io/dagger/querybuilder", "dagger.io/dagger"},
		{"github.com/x", "github.com/x"},
	} {
		if got := moduleOf(tc.pkg); got != tc.want {
			t.Errorf("moduleOf(%q) = %q, want %q", tc.pkg, got, tc.want)
		}
	}
}

// Only the compile actions that ran count: a cached action has no command, and links and
// cache checks are other modes.
func TestReadSumsCompilesByModule(t *testing.T) {
	const graph = `[
 {"Mode":"build","Package":"github.com/a/b/c","Cmd":["compile"],"TimeStart":"2026-01-01T00:00:00Z","TimeDone":"2026-01-01T00:00:02Z"},
 {"Mode":"build","Package":"github.com/a/b/d","Cmd":["compile"],"TimeStart":"2026-01-01T00:00:00Z","TimeDone":"2026-01-01T00:00:03Z"},
 {"Mode":"build","Package":"github.com/a/b/cached","TimeStart":"2026-01-01T00:00:00Z","TimeDone":"2026-01-01T00:00:09Z"},
 {"Mode":"link","Package":"main","Cmd":["link"],"TimeStart":"2026-01-01T00:00:00Z","TimeDone":"2026-01-01T00:00:09Z"},
 {"Mode":"build","Package":"main","Cmd":["compile"],"TimeStart":"2026-01-01T00:00:00Z","TimeDone":"2026-01-01T00:00:01Z"}
]`
	actions, err := decode(strings.NewReader(graph))
	if err != nil {
		t.Fatal(err)
	}
	costs := byModule(actions)
	if len(costs) != 2 {
		t.Fatalf("got %d modules, want 2: %+v", len(costs), costs)
	}
	first := costs[0]
	if first.module != "github.com/a/b" || first.packages != 2 || first.total != 5*time.Second || first.slowest != "github.com/a/b/d" {
		t.Errorf("first module = %+v", first)
	}
	if costs[1].module != "dagger/shipyard" || costs[1].total != time.Second {
		t.Errorf("second module = %+v", costs[1])
	}
}

// The critical path follows the imports, not the biggest compiles: b (4 s) and c (3 s) ran
// side by side, and main waits for both, so the path is main, then b.
func TestCriticalPathFollowsTheLongestChain(t *testing.T) {
	const graph = `[
 {"ID":0,"Mode":"link","Package":"main","Deps":[1]},
 {"ID":1,"Mode":"build","Package":"main","Cmd":["compile"],"Deps":[2,3],"TimeStart":"2026-01-01T00:00:07Z","TimeDone":"2026-01-01T00:00:08Z"},
 {"ID":2,"Mode":"build","Package":"example.com/b","Cmd":["compile"],"Deps":[4],"TimeStart":"2026-01-01T00:00:02Z","TimeDone":"2026-01-01T00:00:06Z"},
 {"ID":3,"Mode":"build","Package":"example.com/c","Cmd":["compile"],"TimeStart":"2026-01-01T00:00:00Z","TimeDone":"2026-01-01T00:00:03Z"},
 {"ID":4,"Mode":"build","Package":"example.com/cached","Deps":[3],"TimeStart":"2026-01-01T00:00:00Z","TimeDone":"2026-01-01T00:00:01Z"}
]`
	actions, err := decode(strings.NewReader(graph))
	if err != nil {
		t.Fatal(err)
	}
	path, total := criticalPath(actions)
	var names []string
	for _, a := range path {
		names = append(names, a.Package)
	}
	// b waits for c through the cached package, which costs nothing itself.
	if got := strings.Join(names, " "); got != "main example.com/b example.com/c" || total != 8*time.Second {
		t.Errorf("critical path = %q, %v; want main, b, c and 8s", got, total)
	}
}

func TestReadRefusesWhatIsNotAnActionGraph(t *testing.T) {
	if _, err := decode(strings.NewReader(`{"Mode":"build"}`)); err == nil {
		t.Fatal("read accepted an object where the action graph is a list")
	}
}
