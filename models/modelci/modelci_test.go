package modelci

import (
	"context"
	"strings"
	"testing"

	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/modeltest"
)

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
		// oldestFails: the tests fail on Python 3.10, whose reports the report holds.
		oldestFails bool
	}{
		{name: "the template's checkout passes on every Python it names", wantRows: []string{"| install | passed", "| lint | passed",
			"| test (Python 3.10) | passed", "| test (Python 3.11) | passed", "| test (Python 3.12) | passed", "| test (Python 3.13) | passed", "| artifacts | passed"}},
		{name: "a test failing on one Python fails the run, the others still report",
			program: func(e *engine.Engine) {
				e.OnExec(engine.ExecRule{ArgsContain: "make test", Image: fixturesPythonImage(t, "3.11"), ExitCode: 2, Stderr: "FAILED tests/test_import.py::test_has_modules"})
			},
			wantErr: "1 job(s) failed: test (Python 3.11)", wantRows: []string{"| test (Python 3.11) | failed", "| test (Python 3.12) | passed", "| lint | passed", "| artifacts | passed"}},
		{name: "a test failing on the oldest Python leaves no test reports",
			program: func(e *engine.Engine) {
				e.OnExec(engine.ExecRule{ArgsContain: "make test", Image: fixturesPythonImage(t, "3.10"), ExitCode: 1, Stderr: "FAILED tests/test_import.py::test_has_modules"})
			},
			oldestFails: true, wantErr: "1 job(s) failed: test (Python 3.10)", wantRows: []string{"| test (Python 3.10) | failed", "| test (Python 3.11) | passed"}},
		{name: "an artifact that differs from the checkout fails the artifacts job", edit: oneByte,
			wantErr: "artifacts", wantRows: []string{"| artifacts | failed", "| test (Python 3.13) | passed"}},
		{name: "a classifier requires-python excludes is refused",
			changes:  map[string]string{modelenv.PyprojectPath: strings.Replace(fixtures.ModelRepoFiles(t, nil)[modelenv.PyprojectPath], "requires-python = \">=3.10\"", "requires-python = \">=3.12\"", 1)},
			wantErr:  "names Python 3.10, which requires-python \">=3.12\" excludes",
			wantRows: nil},
		{name: "a check-artifacts target of its own runs too",
			changes:  map[string]string{"Makefile": fixtures.ModelRepoFiles(t, nil)["Makefile"] + "\ncheck-artifacts:\n\tuv build\n"},
			wantRows: []string{"| check-artifacts | passed", "| artifacts | passed"}},
		{name: "a typecheck target of its own runs too",
			changes:  map[string]string{"Makefile": fixtures.ModelRepoFiles(t, nil)["Makefile"] + "\ntypecheck:\n\tuv run --frozen mypy -p cloudcoil.models.cert_manager\n"},
			program:  func(e *engine.Engine) { e.ExpectExecs("make typecheck") },
			wantRows: []string{"| typecheck | passed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, e := modeltest.NewEnv(t)
			modeltest.ServeDistributions(e, "", fixtures.BuildDistributions(t, fixtures.ModelRepoFiles(t, tt.changes), tt.edit))
			if tt.program != nil {
				tt.program(e)
			}
			r, err := RepositoryCI(context.Background(), env, modeltest.HostRepo(t, env, tt.changes))
			if tt.wantErr == "" && err != nil {
				t.Fatalf("%v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || (tt.wantRows != nil && !strings.Contains(err.Error(), r.Summary.Table()))) {
				t.Fatalf("err = %v, want %q with the table", err, tt.wantErr)
			}
			table := r.Summary.Table()
			for _, row := range tt.wantRows {
				if !strings.Contains(table, row) {
					t.Errorf("table lacks %q:\n%s", row, table)
				}
			}
			// The checkout as it is: no rendering, no generation, no lock refresh.
			for _, args := range modeltest.ExecArgs(e) {
				if strings.Contains(args, "cloudcoil-model-codegen") || strings.Contains(args, "cookiecutter") || strings.HasPrefix(args, "uv lock") {
					t.Errorf("model-ci regenerated: %q", args)
				}
			}
			if tt.wantRows == nil {
				return // refused before running
			}
			if !modeltest.HasExec(e, "uv sync --frozen --all-extras") {
				t.Errorf("the locked environment was not installed: %q", modeltest.ExecArgs(e))
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
			if _, err := dir.Export(context.Background(), t.TempDir()); err != nil {
				t.Fatal(err)
			}
			// The reports the oldest Python's test run wrote, as the template's ci.yml uploaded
			// its 3.10 coverage; none when that run failed.
			exports := e.Graph().Exports()
			chain := exports[len(exports)-1].Chain
			reports := `.withDirectory(path:".",source:container.from(address:"` + fixturesPythonImage(t, "3.10") + `")`
			fromTheTestRun := `.withExec(args:["make","test"]).directory(path:".").filter(include:["coverage.xml","junit.xml"]))`
			if got := strings.Contains(chain, reports) && strings.HasSuffix(chain, fromTheTestRun); got != !tt.oldestFails {
				t.Errorf("the report holds the oldest Python's test reports: %v, want %v; its chain:\n%s", got, !tt.oldestFails, chain)
			}
			modeltest.NoSecrets(t, e)
		})
	}
}

func TestModelCIRefusesAMakefileWithoutItsTargets(t *testing.T) {
	tests := []struct {
		name, makefile, want string
	}{
		{"no test", "lint:\n\truff check .\n", "Makefile: no target test, which model-ci runs (make lint test); add it to Makefile; the Cloudcoil template's:\ntest:\n\tuv run python -m pytest"},
		{"no Makefile", "", "Makefile: Makefile: no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, e := modeltest.NewEnv(t)
			_, err := RepositoryCI(context.Background(), env, modeltest.HostRepo(t, env, map[string]string{"Makefile": tt.makefile}))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if n := len(e.Graph().Execs()); n != 0 {
				t.Errorf("ran %d commands before refusing: %q", n, modeltest.ExecArgs(e))
			}
		})
	}
}

// fixturesPythonImage is the pinned image of a Python minor.
func fixturesPythonImage(t *testing.T, minor string) string {
	t.Helper()
	img, err := pins.DefaultPins().PythonImage(minor)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestModelCIInstallFailureSkipsEveryJob: when the locked environment does not install,
// no job runs on it: each is a skipped row saying why, after the failed install row, and
// the error carries the table.
func TestModelCIInstallFailureSkipsEveryJob(t *testing.T) {
	env, e := modeltest.NewEnv(t)
	modeltest.ServeDistributions(e, "", fixtures.BuildDistributions(t, fixtures.ModelRepoFiles(t, nil), nil))
	e.OnExec(engine.ExecRule{ArgsContain: "uv sync --frozen --all-extras", ExitCode: 1, Stderr: "error: the lockfile needs to be updated"})
	r, err := RepositoryCI(context.Background(), env, modeltest.HostRepo(t, env, nil))
	if err == nil || !strings.Contains(err.Error(), "1 job(s) failed: install") || !strings.Contains(err.Error(), r.Summary.Table()) {
		t.Fatalf("err = %v, want the failed install with the table", err)
	}
	var got []string
	for _, j := range r.Summary.Jobs {
		got = append(got, j.Name+"="+string(j.Status))
		if j.Status == jobs.Skipped && j.Reason != "the locked environment did not install" {
			t.Errorf("%s skipped for %q", j.Name, j.Reason)
		}
	}
	want := []string{"install=failed", "lint=skipped", "test (Python 3.10)=skipped", "test (Python 3.11)=skipped",
		"test (Python 3.12)=skipped", "test (Python 3.13)=skipped", "artifacts=skipped"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("rows %v, want %v", got, want)
	}
	for _, args := range modeltest.ExecArgs(e) {
		if strings.HasPrefix(args, "make ") || strings.HasPrefix(args, "uv build") {
			t.Errorf("ran %q on an environment that did not install", args)
		}
	}
}
