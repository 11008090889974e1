//go:build realengine

package realengine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/versions"
	"dagger/shipyard/models/versions/versionstest"
)

// The adoption walk of docs/cloudcoil.md on a real engine, on the real Cloudcoil tree:
// propose-upstreams on a checkout without models/upstreams.json, then model-versions
// --check against a copy of the tree with that file, served by githubsim: the whole plan
// of the 12 integrations, and not a single write.
func TestModelVersionsOnTheRealTree(t *testing.T) {
	t.Parallel()
	files := versionstest.RealTreeFiles(t)
	checkout := t.TempDir()
	for p, content := range files {
		dst := filepath.Join(checkout, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// propose-upstreams reads Cloudcoil's releases from the PyPI simulator, which decide
	// the current minor.
	w := versionstest.NewRealTree(t)
	pypi := serve(t, proxyTo(t, w.PyPI.URL()))
	info, err := upstreams.FetchPyPI(context.Background(), w.PyPI.URL(), "cloudcoil", w.PyPI.Client())
	if err != nil {
		t.Fatal(err)
	}
	var evidence upstreams.CloudcoilEvidence
	for _, r := range info.Releases {
		if !r.Yanked {
			evidence.Releases = append(evidence.Releases, r.Version)
		}
	}
	proposed := call(t, nil, "--source", checkout, "propose-upstreams", "--format", "file", "--pypi-url", pypi+"/")
	if want := versionstest.ProposedUpstreams(t, files, evidence); proposed != want {
		t.Fatalf("propose-upstreams through the engine differs from the proposal in Go:\n%s", proposed)
	}
	text := call(t, nil, "--source", checkout, "propose-upstreams", "--pypi-url", pypi+"/")
	mustContain(t, "propose-upstreams", text, "Inferred by a rule of thumb (confirm):", "- integrations.kubernetes.policy: ", upstreams.FilePath+":\n",
		"Cloudcoil migration (part of the adoption):")

	api := publishGitHub(t, w.GitHub)
	env := map[string]string{"GHTOKEN": versionstest.Token}
	ctor := []string{"--repo", versionstest.Repository, "--github-api", api, "--github-token", "env://GHTOKEN",
		"--pin", "python-3.13=" + baseImage}
	fn := []string{"model-versions", "--pypi-url", pypi + "/", "--check"}

	plan := call(t, env, append(ctor, fn...)...)
	mustContain(t, "model-versions --check", plan,
		"cert-manager: 1.17.1 → 1.18.0 (proposed for review: new minor replacing 1.17.1)",
		"kubernetes: 1.32.1 → 1.33.0 (proposed for review: new minor added, retiring 1.29.13)",
		"cloudcoil: 0.4.0 → 0.4.2 (Cloudcoil update within its compatible minor)",
		"cloudcoil: 0.4.0 → 0.5.1 (new Cloudcoil minor: needs a deliberate migration, not applied)",
		"Check only: no file, branch or pull request was changed.")
	for _, name := range []string{"cert-manager", "fluxcd", "istio", "keda", "knative-eventing", "knative-serving", "kpack", "kubernetes", "kyverno", "prometheus-operator", "sealed-secrets", "velero"} {
		mustContain(t, "model-versions --check", plan, "\n"+name+": ")
	}
	if strings.Contains(plan, "skipped") {
		t.Errorf("the real tree has no problem, yet:\n%s", plan)
	}

	js := call(t, env, append(append(ctor, fn...), "--format", "json")...)
	var report versions.Report
	if err := json.Unmarshal([]byte(js), &report); err != nil {
		t.Fatalf("--format json: %v\n%s", err, js)
	}
	if len(report.Plan.Changes) != 21 || len(report.Plan.Problems) != 0 || report.Action != versions.ActionChecked {
		t.Errorf("report: %d changes, problems %v, action %s", len(report.Plan.Changes), report.Plan.Problems, report.Action)
	}
	if writes := w.GitHub.Writes(); len(writes) != 0 {
		t.Errorf("--check wrote %v", writes)
	}
	if strings.Contains(plan+js, versionstest.Token) {
		t.Fatal("the token reached the output")
	}
}
