package ghworkflow

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	const text = `name: CI
concurrency: ci-${{ github.ref }}
permissions: {}
jobs:
  build:
    needs: lint
    concurrency: {group: build, cancel-in-progress: false}
    permissions: {contents: read, id-token: write}
    steps:
      - uses: actions/checkout@0123456789abcdef0123456789abcdef01234567 # v6.0.0
        with: {persist-credentials: "false"}
      - run: make
  release:
    needs: [lint, build]
    concurrency: {group: release, cancel-in-progress: "${{ github.event_name == 'pull_request' }}"}
    permissions: write-all
    steps: []
`
	w, err := Parse("ci.yml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	build, release := w.Jobs["build"], w.Jobs["release"]
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"a bare group", w.Concurrency, Concurrency{Group: "ci-${{ github.ref }}"}},
		{"a bare group cancels nothing", w.Concurrency.Cancels(), false},
		{"cancel-in-progress false", build.Concurrency.Cancels(), false},
		{"cancel-in-progress an expression", release.Concurrency.Cancels(), true},
		{"needs, one", build.Needs, Needs{"lint"}},
		{"needs, a list", release.Needs, Needs{"lint", "build"}},
		{"the uses line's comment", build.Steps[0].Pin, "# v6.0.0"},
		{"with", build.Steps[0].With["persist-credentials"], "false"},
		{"run", build.Steps[1].Run, "make"},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.what, c.got, c.want)
		}
	}
	if g, ok := Grants(build.Permissions); !ok || !reflect.DeepEqual(g, map[string]string{"contents": "read", "id-token": "write"}) {
		t.Errorf("build's grants = %v, %v", g, ok)
	}
	if g, ok := Grants(w.Permissions); !ok || len(g) != 0 {
		t.Errorf("permissions: {} = %v, %v; want none, as a mapping", g, ok)
	}
	if _, ok := Grants(release.Permissions); ok {
		t.Error("write-all read as a mapping of grants")
	}
}

func TestParseNamesTheFile(t *testing.T) {
	_, err := Parse("broken.yml", []byte("jobs: [\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "broken.yml: ") {
		t.Errorf("Parse = %v, want an error naming broken.yml", err)
	}
	if _, err := Read("no/such/workflow.yml"); err == nil {
		t.Error("Read of a missing file succeeded")
	}
}
