package modelrelease

import (
	"context"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models/modelenv"
)

func TestChecksFor(t *testing.T) {
	tests := []struct {
		name, makefile string
		want           []string // the commands, in order
		err            string
	}{
		{"the template's Makefile: lint runs mypy", fixtures.ModelRepoFiles(t, nil)["Makefile"], []string{"make lint", "make test"}, ""},
		{"a separate typecheck target runs too", "lint:\ntypecheck:\ntest:\n", []string{"make lint", "make typecheck", "make test"}, ""},
		{"no test target", "lint:\n\truff check .\n", nil, "Makefile: no target test, which model-release runs (make lint test); add it to Makefile"},
		{"no targets at all", "", nil, "no target lint, no target test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checks, err := modelenv.ChecksFor(tt.makefile, "model-release")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			var got []string
			for _, c := range checks {
				for _, args := range c.Commands {
					got = append(got, strings.Join(args, " "))
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("commands %q, want %q", got, tt.want)
			}
		})
	}
}

// A repository whose Makefile lost a target fails its checks with the error naming the
// target and the Makefile, and runs none of its commands.
func TestValidateModelsNamesAMissingTarget(t *testing.T) {
	env, e := newEnv(t)
	renderAnything(e)
	// What the template and keda's Makefile overlay rendered lacks a test target.
	e.OnFile(engine.FileRule{Path: "output/models-x/Makefile", ChainContains: "gen-repo-keda", Contents: "lint:\n\truff check .\n"})
	src := generatorRepo(t, env, map[string]string{"models/keda/Makefile": "lint:\n\truff check .\n"})
	v, err := ValidateModels(context.Background(), env, src, ValidateOptions{Changed: []string{"models/keda/Makefile"}})
	if err == nil || !strings.Contains(err.Error(), "| keda: test | failed") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(v.Summary.Table(), "Makefile: no target test") {
		t.Errorf("table does not name the target and the Makefile:\n%s", v.Summary.Table())
	}
	if hasExec(e, "make lint") {
		t.Error("ran make lint although the Makefile lacks a target the checks need")
	}
}
