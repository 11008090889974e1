package modelrelease

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
)

// serveRepoDist makes the double list dist in the checkout's dist/, where the template's
// build target writes, and read the archives back as the graph does.
func serveRepoDist(e *engine.Engine, dist fixtures.Distributions) {
	e.OnEntries(engine.DirRule{Path: RepoDistDir, Entries: []string{dist.SdistName, dist.WheelName}})
	e.OnFile(engine.FileRule{Path: EncodedDir + "/" + dist.WheelName + ".b64", Contents: base64.StdEncoding.EncodeToString(dist.Wheel)})
	e.OnFile(engine.FileRule{Path: EncodedDir + "/" + dist.SdistName + ".b64", Contents: base64.StdEncoding.EncodeToString(dist.Sdist)})
}

func TestModelCI(t *testing.T) {
	oneByte := func(kind string, files map[string]string) {
		if kind == "sdist" {
			files["cloudcoil_models_cert_manager-1.17.1.0/"+fixtures.ModelRepoPackageDir+"/v1.py"] += " "
		}
	}
	tests := []struct {
		name     string
		changes  map[string]string
		edit     func(kind string, files map[string]string)
		program  func(e *engine.Engine)
		wantErr  string
		wantRows []string
	}{
		{name: "the template's checkout passes", wantRows: []string{"| install | passed", "| lint | passed", "| test | passed", "| check-artifacts | passed"}},
		{name: "a failing test target fails the run, the others still report",
			program: func(e *engine.Engine) {
				e.OnExec(engine.ExecRule{ArgsContain: "make test", ExitCode: 2, Stderr: "FAILED tests/test_import.py::test_has_model_modules"})
			},
			wantErr: "1 job(s) failed: test", wantRows: []string{"| test | failed", "| lint | passed", "| check-artifacts | passed"}},
		{name: "an artifact that differs from the checkout fails check-artifacts", edit: oneByte,
			wantErr: "check-artifacts", wantRows: []string{"| check-artifacts | failed", "| test | passed"}},
		{name: "a typecheck target of its own runs too",
			changes:  map[string]string{"Makefile": fixtures.ModelRepoFiles(t, nil)["Makefile"] + "\ntypecheck:\n\tuv run --frozen mypy -p cloudcoil.models.cert_manager\n"},
			program:  func(e *engine.Engine) { e.ExpectExecs("make typecheck") },
			wantRows: []string{"| typecheck | passed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, e := newEnv(t)
			serveRepoDist(e, fixtures.BuildDistributions(t, fixtures.ModelRepoFiles(t, tt.changes), tt.edit))
			if tt.program != nil {
				tt.program(e)
			}
			r, err := env.ModelCI(context.Background(), hostRepo(t, env, tt.changes))
			if tt.wantErr == "" && err != nil {
				t.Fatalf("%v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), r.Summary.Table())) {
				t.Fatalf("err = %v, want %q with the table", err, tt.wantErr)
			}
			table := r.Summary.Table()
			for _, row := range tt.wantRows {
				if !strings.Contains(table, row) {
					t.Errorf("table lacks %q:\n%s", row, table)
				}
			}
			// The checkout as it is: no rendering, no generation, no lock refresh.
			for _, args := range execArgs(e) {
				if strings.Contains(args, "cloudcoil-model-codegen") || strings.Contains(args, "cookiecutter") || strings.HasPrefix(args, "uv lock") {
					t.Errorf("model-ci regenerated: %q", args)
				}
			}
			if !hasExec(e, "uv sync --frozen") {
				t.Errorf("the locked environment was not installed: %q", execArgs(e))
			}
			dir, err := r.Dir(env.Client)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"summary.md", "results.json", "check-artifacts.txt"} {
				if ok, err := dir.Exists(context.Background(), f); err != nil || !ok {
					t.Errorf("report lacks %s: %v", f, err)
				}
			}
			noSecrets(t, e)
		})
	}
}

func TestModelCIRefusesAMakefileWithoutItsTargets(t *testing.T) {
	tests := []struct {
		name, makefile, want string
	}{
		{"no check-artifacts", "lint:\n\truff check .\ntest:\n\tpytest\n", "model-ci: Makefile: no target check-artifacts, which model-ci runs (make lint test check-artifacts); add it to Makefile"},
		{"no Makefile", "", "model-ci: Makefile: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, e := newEnv(t)
			_, err := env.ModelCI(context.Background(), hostRepo(t, env, map[string]string{"Makefile": tt.makefile}))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if n := len(e.Graph().Execs()); n != 0 {
				t.Errorf("ran %d commands before refusing: %q", n, execArgs(e))
			}
		})
	}
}
