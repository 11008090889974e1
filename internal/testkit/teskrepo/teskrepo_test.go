package teskrepo_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"dagger.io/dagger"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/teskrepo"
	"dagger/shipyard/pipelines/releasegate"
)

// TestSeededReleasesPassTheGates runs release-plan over the seeded history: each prepared
// and tagged release passes every gate, with the flags the process gives it.
func TestSeededReleasesPassTheGates(t *testing.T) {
	ctx := context.Background()
	r := teskrepo.New(t, teskrepo.Options{})
	backport := r.Prepare("v0.10.7")
	r.Release("v0.11.0rc1")
	gh := r.Client(t, teskrepo.ReadToken)

	tests := []struct {
		name             string
		tag              string
		before           func()
		prerelease, late bool
	}{
		{name: "pre-release", tag: "v0.11.0rc1", prerelease: true},
		{name: "final after its rc", tag: "v0.11.0", before: func() { r.Publish("v0.11.0rc1", ""); r.Release("v0.11.0") }, prerelease: true, late: true},
		{name: "backport tagged on an older commit of main", tag: "v0.10.7", before: func() { r.Publish("v0.11.0", ""); r.Tag("v0.10.7", backport) }, prerelease: true},
		{name: "1.0.0", tag: "v1.0.0", before: func() { r.Release("v1.0.0") }, late: true},
	}
	for _, tt := range tests {
		if tt.before != nil {
			tt.before()
		}
		plan, err := releasegate.Check(ctx, gh, teskrepo.FullName, tt.tag, releasegate.Config{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if plan.Prerelease != tt.prerelease || plan.Latest != tt.late || plan.Notes != teskrepo.Notes(teskrepo.Version(tt.tag)) {
			t.Errorf("%s: plan %+v", tt.name, plan)
		}
	}
}

func TestServeTree(t *testing.T) {
	ctx := context.Background()
	r := teskrepo.New(t, teskrepo.Options{Published: []string{}})
	sha := r.Release("v0.11.0")
	e := engine.New(t)
	r.ServeTree(e, "v0.11.0")
	c := e.Client(ctx)

	ref := c.Git(teskrepo.GitURL).Tag("v0.11.0")
	got, err := ref.Commit(ctx)
	if err != nil || got != sha {
		t.Fatalf("commit %q, %v; want %s", got, err, sha)
	}
	tree := c.Git(teskrepo.GitURL).Commit(sha).Tree()
	entries, err := tree.Directory("containers").Entries(ctx)
	if err != nil || !reflect.DeepEqual(entries, []string{"filer.Dockerfile", "taskmaster.Dockerfile"}) {
		t.Fatalf("containers/: %v, %v", entries, err)
	}
	root, err := tree.Entries(ctx)
	if err != nil || !slices.Contains(root, "src/") || !slices.Contains(root, "CITATION.cff") {
		t.Fatalf("root entries %v, %v", root, err)
	}
	// Files stay readable through the filters a build applies.
	cff, err := tree.Filter(dagger.DirectoryFilterOpts{Exclude: []string{"docs/"}}).File("CITATION.cff").Contents(ctx)
	if err != nil || cff != teskrepo.Citation("0.11.0") {
		t.Fatalf("CITATION.cff %q, %v", cff, err)
	}
	// Another tag is not taught.
	if other, _ := c.Git(teskrepo.GitURL).Tag("v0.11.0rc1").Commit(ctx); other == sha {
		t.Error("an untaught tag resolved to the taught commit")
	}
}

func TestReportBuiltVersion(t *testing.T) {
	ctx := context.Background()
	e := engine.New(t)
	teskrepo.ReportBuiltVersion(e)
	c := e.Client(ctx)
	check := []string{"python", "-c", "import importlib.metadata as m; print(m.version('teskcore'))"}
	tests := []struct {
		name    string
		args    []dagger.BuildArg
		want    string
		wantErr bool
	}{
		{name: "pretend version", args: []dagger.BuildArg{{Name: "SETUPTOOLS_SCM_PRETEND_VERSION", Value: "0.11.0rc1"}}, want: "0.11.0rc1\n"},
		{name: "no history, no version", want: "0.0.0.dev0\n"},
	}
	for _, tt := range tests {
		ctr := c.Directory().WithNewFile("Dockerfile", "FROM python:3.12-alpine\n").
			DockerBuild(dagger.DirectoryDockerBuildOpts{BuildArgs: tt.args}).WithExec(check)
		got, err := ctr.Stdout(ctx)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: %q, %v", tt.name, got, err)
		}
	}
	if _, err := c.Container().From("python:3.12-alpine").WithExec(check).Stdout(ctx); err == nil || !strings.Contains(err.Error(), "exit code: 1") {
		t.Errorf("an image not built from the project: %v", err)
	}
}
