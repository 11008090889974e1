//go:build realengine

package realengine

import (
	"encoding/json"
	"strings"
	"testing"

	"dagger/shipyard/models/versions"
	"dagger/shipyard/models/versions/versionstest"
)

// model-versions on a real engine, against the GitHub and PyPI simulators: --check prints
// the plan and writes nothing; a run opens the pull request; an unchanged re-run is
// answered by 304s only, because the ETag cache went through a real cache volume.
func TestModelVersions(t *testing.T) {
	t.Parallel()
	w := versionstest.New(t)
	api := publishGitHub(t, w.GitHub)
	pypi := serve(t, proxyTo(t, w.PyPI.URL()))
	env := map[string]string{"GHTOKEN": versionstest.Token}
	ctor := []string{"--repo", versionstest.Repository, "--github-api", api, "--github-token", "env://GHTOKEN",
		"--pin", "python-3.13=" + baseImage}
	fn := []string{"model-versions", "--pypi-url", pypi + "/"}

	checked := call(t, env, append(append(ctor, fn...), "--check", "--format", "json")...)
	var report versions.Report
	if err := json.Unmarshal([]byte(checked), &report); err != nil {
		t.Fatalf("--check --format json: %v\n%s", err, checked)
	}
	if !report.Check || !report.Plan.HasEdits() || len(w.GitHub.Writes()) != 0 {
		t.Fatalf("--check: %+v; writes %v", report, w.GitHub.Writes())
	}

	opened := call(t, env, append(ctor, fn...)...)
	if pulls := w.Repo.PullRequests(); len(pulls) != 1 {
		t.Fatalf("pull requests %+v; output:\n%s", pulls, opened)
	}

	before := len(w.GitHub.Requests())
	again := call(t, env, append(ctor, fn...)...)
	mustContain(t, "the unchanged run", again, "nothing was written")
	rerun := w.GitHub.Requests()[before:]
	if len(rerun) == 0 {
		t.Fatal("the unchanged run made no request")
	}
	for _, r := range rerun {
		if !r.NotModified {
			t.Errorf("unchanged run: %s %s answered %d, want 304 (the ETag cache was not kept in the volume)", r.Method, r.Path, r.Status)
		}
	}
	if strings.Contains(checked+opened+again, versionstest.Token) {
		t.Fatal("the token reached the output")
	}
}
