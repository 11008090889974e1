package githubactions

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/models/modelrelease"
)

// A model repository's CI uploads to Codecov what the template's ci.yml uploaded (test
// results, with codecov-action, which took over from test-results-action, and coverage when
// there is any), from the files model-ci exports, after Shipyard's call, with a token only
// Codecov's steps see.
func TestCloudcoilModelCIUploadsToCodecov(t *testing.T) {
	w := readWorkflow(t, filepath.Join("cloudcoil", "model-ci.yml"))
	uploads := codecovSteps(t, w)["model-ci"]
	var kinds []string
	for _, s := range uploads {
		kind := s.With["report_type"]
		if kind == "" {
			kind = "coverage"
		}
		kinds = append(kinds, kind)
		want := map[string]string{"coverage": "ci-out/coverage.xml", "test_results": "ci-out/junit.xml"}[kind]
		if s.With["files"] != want || s.With["disable_search"] != "true" {
			t.Errorf("the %s upload sends %q (disable_search %q), want only %s", kind, s.With["files"], s.With["disable_search"], want)
		}
		if !slices.Contains(modelrelease.CIReportFiles(), filepath.Base(want)) {
			t.Errorf("model-ci exports %v, not %s", modelrelease.CIReportFiles(), filepath.Base(want))
		}
		// The template's coverage settings measure nothing in a model repository, so there
		// is often no coverage.xml: its upload runs only when there is one.
		if wantIf := map[string]string{"coverage": "hashFiles('ci-out/coverage.xml') != ''"}[kind]; s.If != wantIf {
			t.Errorf("the %s upload runs if %q, want %q", kind, s.If, wantIf)
		}
		if s.With["token"] != "${{ secrets.CODECOV_TOKEN }}" || s.With["slug"] != "cloudcoil/cloudcoil" {
			t.Errorf("the %s upload: token %q, slug %q; want the template's CODECOV_TOKEN and cloudcoil/cloudcoil", kind, s.With["token"], s.With["slug"])
		}
	}
	if !slices.Equal(kinds, []string{"coverage", "test_results"}) {
		t.Errorf("Codecov uploads %v, want coverage then test_results", kinds)
	}
	steps := w.Jobs["model-ci"].Steps
	exported := slices.IndexFunc(steps, func(s step) bool { return strings.Contains(s.Run, "model-ci export --path ci-out") })
	for i, s := range steps {
		if strings.HasPrefix(s.Uses, "codecov/") && (exported < 0 || i < exported) {
			t.Errorf("step %d uploads to Codecov before model-ci exported its reports (step %d)", i, exported)
		}
	}
}
