package main

import (
	"context"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models/modelrelease/modelreleasetest"
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
	modelreleasetest.ServeDistributions(me, "", fixtures.BuildDistributions(t, fixtures.ModelRepoFiles(t, nil), nil))
	if out, err := model.CheckArtifacts(ctx); err != nil || !strings.Contains(out, "artifacts match the checkout") {
		t.Errorf("a model repository: %v\n%s", err, out)
	}

	// A pyproject.toml that does not parse is an error, not a skip.
	broken, _ := newModule(t, map[string]string{"pyproject.toml": "[project\n"})
	if _, err := broken.CheckArtifacts(ctx); err == nil || !strings.Contains(err.Error(), "pyproject.toml") {
		t.Errorf("a broken pyproject.toml: %v", err)
	}
}
