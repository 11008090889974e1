//go:build realengine

package realengine

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/testkit/fixtures"
)

const ghToken = "ghp_realengine0release0plan0token"

// teskCore seeds the simulator with tesk-core: v0.11.0 tagged, signed, on main, with CI
// passed for its push to dev; v0.12.0 tagged the same way, but with notes that break the
// format. It returns the repository and the CI run of the v0.11.0 commit.
func teskCore(t *testing.T) (*githubsim.Server, *githubsim.Repo, int64) {
	t.Helper()
	sim := githubsim.New(t)
	sim.AddToken(ghToken, githubsim.Token{})
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	repo.CommitOnBranch("dev", "feat: first", map[string]string{"README.md": "# tesk-core\n"})
	good := repo.CommitOnBranch("dev", "chore: release v0.11.0", map[string]string{
		"CITATION.cff":            "cff-version: 1.2.0\ntitle: tesk-core\nversion: 0.11.0\ndate-released: 2026-11-02\n",
		"docs/releases/0.11.0.md": "Brings signed images.\n\n## Features\n\n- Sign both images (#101, #102)\n",
	})
	repo.AnnotatedTag("v0.11.0", good, githubsim.ValidSignature())
	goodRun := repo.AddWorkflowRun(githubsim.WorkflowRun{Workflow: "ci.yml", Event: "push", HeadBranch: "dev",
		HeadSHA: good, Status: "completed", Conclusion: "success"})
	bad := repo.CommitOnBranch("dev", "chore: release v0.12.0", map[string]string{
		"CITATION.cff":            "cff-version: 1.2.0\ntitle: tesk-core\nversion: 0.12.0\ndate-released: 2026-11-20\n",
		"docs/releases/0.12.0.md": "## Features\n\n- no numbers here\n",
	})
	repo.AnnotatedTag("v0.12.0", bad, githubsim.ValidSignature())
	repo.AddWorkflowRun(githubsim.WorkflowRun{Workflow: "ci.yml", Event: "push", HeadBranch: "dev",
		HeadSHA: bad, Status: "completed", Conclusion: "success"})
	repo.SetBranch("main", bad)
	repo.AddRelease(githubsim.Release{TagName: "v0.10.6", Name: "v0.10.6"})
	return sim, repo, goodRun
}

func ghArgs(api string) []string {
	return []string{"--github-api", api, "--github-token", "env://GHTOKEN"}
}

var ghEnv = map[string]string{"GHTOKEN": ghToken}

func TestReleasePlan(t *testing.T) {
	t.Parallel()
	sim, _, _ := teskCore(t)
	api := publishGitHub(t, sim)

	text := call(t, ghEnv, append(ghArgs(api), "release-plan", "--tag", "v0.11.0")...)
	mustContain(t, "the text plan", text,
		"Release plan for elixir-cloud-aai/tesk-core v0.11.0", "version:      0.11.0 (final)",
		"elixircloud/tesk-core-taskmaster:  0.11.0, latest", "docs/releases/0.11.0.md")

	js := call(t, ghEnv, append(ghArgs(api), "release-plan", "--tag", "v0.11.0", "--format", "json")...)
	var doc struct {
		OK   bool `json:"ok"`
		Plan struct {
			Version string `json:"version"`
			Images  []struct {
				Repository string   `json:"repository"`
				Tags       []string `json:"tags"`
			} `json:"images"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || !doc.OK || doc.Plan.Version != "0.11.0" || len(doc.Plan.Images) != 2 {
		t.Errorf("JSON plan %+v (%v):\n%s", doc, err, js)
	}

	for _, format := range []string{"text", "json"} {
		r := cli(t, ghEnv, "", append([]string{"call"}, append(ghArgs(api), "release-plan", "--tag", "v0.12.0", "--format", format)...)...)
		if r.err == nil {
			t.Fatalf("release-plan of a tag with malformed notes passed (%s):\n%s", format, r)
		}
		mustContain(t, "the failing plan's error ("+format+")", r.stdout+r.stderr,
			"rule 5 (release-notes)", "docs/releases/0.12.0.md:1")
		if format == "json" {
			// The one-line document is the failure's text, which the CLI prints on stderr.
			i := strings.Index(r.stderr, `{"ok":false`)
			if i < 0 {
				t.Fatalf("no JSON document on stderr:\n%s", r)
			}
			var failed struct {
				OK         bool `json:"ok"`
				Violations []struct {
					Rule int    `json:"rule"`
					File string `json:"file"`
					Line int    `json:"line"`
					Fix  string `json:"fix"`
				} `json:"violations"`
			}
			line, _, _ := strings.Cut(r.stderr[i:], "\n")
			line = strings.TrimSpace(line)
			if j := strings.LastIndex(line, "}"); j >= 0 {
				line = line[:j+1]
			}
			if err := json.Unmarshal([]byte(line), &failed); err != nil || failed.OK || len(failed.Violations) == 0 {
				t.Errorf("the failure's JSON %q: %+v (%v)", line, failed, err)
			}
		}
	}
	for _, out := range []string{text, js} {
		if strings.Contains(out, ghToken) {
			t.Fatal("the token reached the output")
		}
	}
}

// A release gate must never answer from an old result: after CI fails for the tagged
// commit, the same call with the same arguments sees the failure (release-plan is
// +cache="never"; by default the engine would serve the first answer again).
func TestReleasePlanSeesOutsideStateChange(t *testing.T) {
	t.Parallel()
	sim, repo, run := teskCore(t)
	api := publishGitHub(t, sim)
	args := append(ghArgs(api), "release-plan", "--tag", "v0.11.0")

	call(t, ghEnv, args...)
	repo.RerunWorkflowRun(run, "completed", "failure",
		githubsim.WorkflowJob{Name: "Lint", Conclusion: "failure"}, githubsim.WorkflowJob{Name: "CI passed", Conclusion: "failure"})
	r := cli(t, ghEnv, "", append([]string{"call"}, args...)...)
	if r.err == nil {
		t.Fatalf("release-plan still passes after CI failed for the tagged commit (a cached answer):\n%s", r)
	}
	// Rule 6 read the run's jobs through the GitHub command, and names the one that failed.
	mustContain(t, "the second plan", r.stdout+r.stderr, "ci-passed", "job Lint failed")
}

// doctor reads the repository's settings through the GitHub simulator: the demo repository
// has none of the rulesets, environments and required checks the seed relies on, so every
// one of those is reported with its fix, and the call fails.
func TestDoctor(t *testing.T) {
	t.Parallel()
	sim, _, _ := teskCore(t)
	api := publishGitHub(t, sim)
	r := cli(t, ghEnv, "", append([]string{"call"}, append(ghArgs(api), "doctor", "--system", "tesk-core")...)...)
	if r.err == nil {
		t.Fatalf("doctor passed a repository without the seed's settings:\n%s", r)
	}
	mustContain(t, "doctor's report", r.stdout+r.stderr, "release", "CI passed", "fix")
	if strings.Contains(r.stdout+r.stderr, ghToken) {
		t.Fatal("the token reached the output")
	}
}

// doctor for a Cloudcoil model repository reads PyPI too: the identity PyPI recorded for
// the newest upload (its provenance, from the Integrity API of the PyPI simulator) ran in
// another environment than the upload job of the repository's pypi_publish.yml, so the
// trusted-publisher check fails with both named.
func TestDoctorModelTrustedPublisher(t *testing.T) {
	t.Parallel()
	sim, pypi := fixtures.PublisherMismatch(t, filepath.Join("..", ".."), ghToken)
	api := publishGitHub(t, sim)
	args := append([]string{"call", "--repo", "cloudcoil/models-keda"}, ghArgs(api)...)
	r := cli(t, ghEnv, "", append(args, "doctor", "--system", "cloudcoil-model", "--pypi-url", serve(t, proxyTo(t, pypi.URL())))...)
	if r.err == nil {
		t.Fatalf("doctor passed a publisher in another environment:\n%s", r)
	}
	mustContain(t, "doctor's report", r.stdout+r.stderr, "[fail] trusted-publisher", "environment release", "runs in environment pypi")
	var provenance bool
	for _, req := range pypi.Requests() {
		provenance = provenance || strings.HasSuffix(req.Path, "/provenance")
	}
	if !provenance {
		t.Error("doctor did not read the upload's provenance")
	}
}
