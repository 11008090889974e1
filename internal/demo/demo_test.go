package demo_test

import (
	"context"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"

	"dagger.io/dagger"
	"github.com/bmatcuk/doublestar/v4"

	"dagger/shipyard/internal/demo"
	"dagger/shipyard/internal/testkit/engine"
)

// The build input is exactly what the demo server's package needs: every package of this
// module it imports is inside Sources (else the build in the engine fails), so a new import
// of the server must be added there.
func TestSourcesCoverTheServer(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-C", "../..", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", demo.Package).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var ours int
	for _, pkg := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(pkg, "dagger/shipyard/")
		if !ok {
			continue // a module dependency, from go.mod and go.sum
		}
		ours++
		if !slices.ContainsFunc(demo.Sources(), func(pattern string) bool {
			m, _ := doublestar.Match(pattern, path.Join(rel, "x.go"))
			return m
		}) {
			t.Errorf("the demo server imports %s, which demo.Sources() leaves out of its build", pkg)
		}
	}
	if ours < 3 {
		t.Fatalf("go list found %d of the module's packages in the server's imports:\n%s", ours, out)
	}
}

// Service builds the server in the builder from the filtered source as a static binary and
// runs it alone, on its three ports; Start returns the endpoints as base URLs, and the
// started service for a git fetch to name.
func TestServiceAndEndpoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := engine.New(t, engine.StrictExecs())
	c := e.Client(ctx)
	e.ExpectExecs("go build -trimpath -gcflags=all=-dwarf=false -ldflags=-s -w -o /shipyard-demo/demo-server " + demo.Package)
	builder := c.Container().From("golang:1.26")
	got, err := demo.Start(ctx, demo.Service(c, builder, c.Host().Directory("../..", dagger.HostDirectoryOpts{Include: demo.Sources()})))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.GitHubAPI, "http://") || !strings.HasSuffix(got.GitHubAPI, ":8080/") ||
		!strings.HasPrefix(got.PyPI, "http://") || !strings.HasSuffix(got.PyPI, ":8081/") ||
		!strings.HasPrefix(got.Git, "http://") || !strings.HasSuffix(got.Git, ":8082/") || got.Service == nil {
		t.Fatalf("endpoints %+v", got)
	}
	services := e.Graph().Services()
	if len(services) != 1 || !services[0].Started {
		t.Fatalf("services %+v", services)
	}
	want := []string{"/usr/local/bin/demo-server", "-github-addr", "0.0.0.0:8080", "-pypi-addr", "0.0.0.0:8081", "-git-addr", "0.0.0.0:8082"}
	if s := services[0]; !slices.Equal(s.Args, want) || s.Image != "" {
		t.Fatalf("the service runs %q on image %q, want %q alone", s.Args, s.Image, want)
	}
	builds := e.Graph().ExecsWith("go build")
	if len(builds) != 1 || builds[0].Image != "golang:1.26" || builds[0].Env["CGO_ENABLED"] != "0" || builds[0].Workdir != "/shipyard-demo/src" {
		t.Fatalf("builds %+v", builds)
	}
}
