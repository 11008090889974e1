package githubactions

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"

	"dagger/shipyard/internal/testkit/ghworkflow"
)

// workflows returns every wrapper, by system folder.
func workflows(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("*", "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no workflow files under examples/github-actions/<system>/")
	}
	sort.Strings(files)
	return files
}

func TestWorkflowsPassActionlint(t *testing.T) {
	linter, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range workflows(t) {
		content, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		errs, err := linter.Lint(f, content, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, e := range errs {
			t.Errorf("%s:%d:%d: %s [%s]", f, e.Line, e.Column, e.Message, e.Kind)
		}
	}
}

// The workflows as the policy reads them (internal/testkit/ghworkflow).
type (
	workflow = ghworkflow.Workflow
	job      = ghworkflow.Job
	step     = ghworkflow.Step
)

func readWorkflow(t *testing.T, path string) workflow {
	t.Helper()
	w, err := ghworkflow.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

var pinnedUses = regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40}$`)

func engineVersion(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "dagger.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		EngineVersion string `json:"engineVersion"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(m.EngineVersion, "v")
}

// TestWorkflowPolicy checks what actionlint does not: minimal permissions on every job,
// actions pinned by commit, the Dagger CLI pinned to the module's engine version, and
// secrets reaching `dagger call` only as env://NAME (never interpolated into a script).
func TestWorkflowPolicy(t *testing.T) {
	want := engineVersion(t)
	secretInRun := regexp.MustCompile(`\$\{\{\s*secrets\.`)
	for _, f := range workflows(t) {
		w := readWorkflow(t, f)
		if got := fmt.Sprint(w.Env["DAGGER_VERSION"]); got != want {
			t.Errorf("%s: env DAGGER_VERSION %q, want the module's engine %q", f, got, want)
		}
		if w.Permissions.Kind == 0 {
			t.Errorf("%s: no top-level permissions (set `permissions: {}` and grant per job)", f)
		}
		for name, j := range w.Jobs {
			where := f + ": job " + name
			if j.Permissions.Kind == 0 {
				t.Errorf("%s: no permissions block", where)
			}
			usesDagger := false
			for _, s := range j.Steps {
				if s.Uses != "" && !strings.HasPrefix(s.Uses, "./") {
					if !pinnedUses.MatchString(s.Uses) {
						t.Errorf("%s: %q is not pinned by a commit SHA", where, s.Uses)
					}
					if strings.HasPrefix(s.Uses, "dagger/dagger-for-github@") {
						usesDagger = true
						if s.With["version"] != "${{ env.DAGGER_VERSION }}" {
							t.Errorf("%s: dagger-for-github version %q, want ${{ env.DAGGER_VERSION }}: the workflow's one place for it, which Renovate moves", where, s.With["version"])
						}
					}
				}
				if secretInRun.MatchString(s.Run) {
					t.Errorf("%s: step %q interpolates a secret into its script; pass it in env and as env://NAME", where, s.Name)
				}
				if strings.Contains(s.Run, "dagger call") && !usesDagger {
					t.Errorf("%s: step %q calls dagger before installing the pinned CLI", where, s.Name)
				}
			}
		}
	}
}

// codecovSteps returns the Codecov uploads of w, by job, after checking that CODECOV_TOKEN
// reaches no other step: in no script, no environment and no other action's inputs.
func codecovSteps(t *testing.T, w workflow) map[string][]step {
	t.Helper()
	uploads := map[string][]step{}
	for id, j := range w.Jobs {
		for _, s := range j.Steps {
			for k, v := range s.Env {
				if strings.Contains(v, "CODECOV_TOKEN") {
					t.Errorf("job %s step %q: CODECOV_TOKEN in env %s", id, s.Name, k)
				}
			}
			if strings.Contains(s.Run, "CODECOV_TOKEN") {
				t.Errorf("job %s step %q: CODECOV_TOKEN in a script", id, s.Name)
			}
			if strings.HasPrefix(s.Uses, "codecov/codecov-action@") {
				uploads[id] = append(uploads[id], s)
				continue
			}
			for k, v := range s.With {
				if strings.Contains(v, "CODECOV_TOKEN") {
					t.Errorf("job %s step %q: CODECOV_TOKEN given to %s (%s)", id, s.Name, s.Uses, k)
				}
			}
		}
	}
	return uploads
}
