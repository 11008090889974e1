package githubactions

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/prcheckout"
	"dagger/shipyard/models/modelci"
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
		if !slices.Contains(modelci.CIReportFiles(), filepath.Base(want)) {
			t.Errorf("model-ci exports %v, not %s", modelci.CIReportFiles(), filepath.Base(want))
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

// The validate-models wrapper's --base, with the pull request's base_ref filled in, names
// the base on the clone actions/checkout leaves for a pull request (detached at the merge
// commit, origin's branches under refs/remotes, no local branch) through Dagger's ref
// lookup alone, as the engine double copies it: the pinned release, older than Shipyard's
// own reading of origin/main, must find it too. git reads the same commit.
func TestValidateModelsBaseResolvesOnAPullRequestCheckout(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join("cloudcoil", "validate-models.yml")
	w := readWorkflow(t, path)
	clone := prcheckout.New(t, prcheckout.Options{Change: map[string]string{"models/keda/README.md": "# keda\n"}, MainLater: map[string]string{"docs/later.md": "later\n"}})
	e := engine.New(t)
	repo := e.Client(ctx).Host().Directory(clone.Dir).AsGit()
	found := 0
	for name, j := range w.Jobs {
		for _, s := range j.Steps {
			if !strings.Contains(s.Run, "validate-models") || !strings.Contains(s.Run, "--base") {
				continue
			}
			found++
			where := path + ": job " + name + ", step " + s.Name
			if !strings.Contains(s.Run, `--base "$BASE"`) || s.Env["BASE"] == "" {
				t.Errorf("%s: --base is not given as \"$BASE\" from the step's env", where)
				continue
			}
			base := strings.NewReplacer("${{ github.base_ref }}", "main", "${{ github.event.pull_request.base.sha }}", clone.Base).Replace(s.Env["BASE"])
			if strings.Contains(base, "${{") {
				t.Errorf("%s: BASE %q uses an expression this test does not know", where, s.Env["BASE"])
				continue
			}
			if sha, err := repo.Ref(base).Commit(ctx); err != nil || sha != clone.Base {
				t.Errorf("%s: --base %s is %q (%v) to Dagger's lookup, want origin's main %s", where, base, sha, err, clone.Base)
			}
			if out, err := exec.Command("git", "-C", clone.Dir, "rev-parse", "--verify", "-q", base+"^{commit}").Output(); err != nil || strings.TrimSpace(string(out)) != clone.Base {
				t.Errorf("%s: git reads --base %s as %q (%v), want %s", where, base, out, err, clone.Base)
			}
		}
	}
	if found != 2 {
		t.Errorf("%s: %d validate-models steps with --base, want the listing job's and the matrix job's", path, found)
	}
}
