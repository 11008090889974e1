package main

import (
	"context"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models/modeltest"
)

// Installed as a toolchain in tesk-core, `dagger check` runs check-artifacts on tesk-core's
// tree: it must skip there, saying why, and run nothing.
func TestCheckArtifactsSkipsOutsideAModelRepository(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, e := newModule(t, nil) // tesk-core's tree; the strict engine fails on any exec
	out, err := m.CheckArtifacts(ctx)
	if err != nil {
		t.Fatalf("check-artifacts on tesk-core's tree failed: %v", err)
	}
	if !strings.Contains(out, "skipped") || !strings.Contains(out, "not a model package") {
		t.Errorf("the skip does not say why:\n%s", out)
	}
	if x := e.Graph().Execs(); len(x) != 0 {
		t.Errorf("the skipped check ran %d commands", len(x))
	}

	// In a model repository it still checks, and fails on a broken build.
	model, me := modelModule(t, fixtures.ModelRepo(t, nil))
	modeltest.ServeDistributions(me, "", fixtures.BuildDistributions(t, fixtures.ModelRepoFiles(t, nil), nil))
	if out, err := model.CheckArtifacts(ctx); err != nil || !strings.Contains(out, "artifacts match the checkout") {
		t.Errorf("a model repository: %v\n%s", err, out)
	}

	// A pyproject.toml that does not parse is an error, not a skip.
	broken, _ := newModule(t, map[string]string{"pyproject.toml": "[project\n"})
	if _, err := broken.CheckArtifacts(ctx); err == nil || !strings.Contains(err.Error(), "pyproject.toml") {
		t.Errorf("a broken pyproject.toml: %v", err)
	}
}

// Installed as a toolchain in a Cloudcoil model repository, `dagger check` runs tesk-core's
// checks there: they skip, saying why, and run nothing.
func TestTeskCoreChecksSkipInAModelRepository(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, e := newModule(t, nil)
	m.Source = m.engine().Host().Directory(fixtures.ModelRepo(t, nil))
	checks := map[string]func() (string, error){
		"lint":       func() (string, error) { return m.Lint(ctx) },
		"test-check": func() (string, error) { return m.TestCheck(ctx) },
		"scan-check": func() (string, error) { return m.ScanCheck(ctx) },
		"end-to-end": func() (string, error) { return m.EndToEnd(ctx, "default") },
		"docs": func() (string, error) {
			d, err := m.Docs(ctx)
			if err != nil {
				return "", err
			}
			entries, err := d.Entries(ctx)
			return strings.Join(entries, ","), err
		},
	}
	for name, check := range checks {
		out, err := check()
		if err != nil {
			t.Errorf("%s in a model repository failed: %v", name, err)
		}
		if name != "docs" && (!strings.Contains(out, name+" skipped") || !strings.Contains(out, "Cloudcoil model repository")) {
			t.Errorf("%s: the skip does not say why: %q", name, out)
		}
	}
	if x := e.Graph().Execs(); len(x) != 0 {
		t.Errorf("the skipped checks ran %d commands", len(x))
	}
}
