package ci

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/teskreal"
)

// TestCIOnTeskCoresRealCode runs ci through the engine double on tesk-core's real code laid
// out as its development guide says (internal/testkit/teskreal), where the made-up fixture
// had our guess of each file: the matrix comes from the real pyproject.toml's
// requires-python, the images from the real layout's Dockerfiles, the docs job reads the
// real mkdocs.yml's inputs only, and every job runs. The real engine runs the same jobs
// with real tools (internal/realengine, TestTeskCoreRealCI).
func TestCIOnTeskCoresRealCode(t *testing.T) {
	ctx := context.Background()
	e := engine.New(t, engine.StrictExecs())
	e.ExpectExecs(ciExecs...)
	cleanScans(e)
	c := e.Client(ctx)
	p := New(c, c.Host().Directory(teskreal.Tree(t)))
	p.Now = func() time.Time { return fixedNow }

	summary, artifacts, err := p.Run(ctx, Options{PRTitle: "fix(filer): retry FTP uploads"})
	if err != nil {
		t.Fatalf("ci on the real code: %v", err)
	}
	var names []string
	for _, j := range summary.Jobs {
		names = append(names, j.Name+":"+string(j.Status))
	}
	if !slices.Equal(names, everyJobPassed) {
		t.Fatalf("jobs\n%v\nwant\n%v", names, everyJobPassed)
	}
	if builds := e.Graph().Builds(); len(builds) != 2 {
		t.Errorf("each image must be built once, got %d builds", len(builds))
	}
	for _, b := range e.Graph().Builds() {
		if !strings.Contains(b.Chain, "containers/") {
			t.Errorf("a build does not use the real layout's containers/ Dockerfile: %s", b.Chain)
		}
	}
	entries, err := artifacts.Entries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"coverage/", "site/", "scan/", "summary.md", "verdict.json"} {
		if !slices.Contains(entries, name) {
			t.Errorf("ci exported no %s (exported %v)", name, entries)
		}
	}
}
