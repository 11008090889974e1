package versions_test

import (
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/githubclient"
	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/versions"
	"dagger/shipyard/models/versions/versionstest"
)

// realWorld is the real tree as adopted (versionstest.NewRealTree).
func realWorld(t *testing.T) *world {
	t.Helper()
	return &world{World: versionstest.NewRealTree(t), cache: githubclient.NewCache(0)}
}

// realPlan is the plan the real tree and the releases above give.
var realPlan = []string{
	"cloudcoil cloudcoil 0.4.0→0.4.2 true",
	"cloudcoil migration 0.4.0→0.5.1 false",
	"cert-manager patch 1.17.1→1.17.2 true",
	"cert-manager proposed 1.17.1→1.18.0 false",
	"fluxcd patch 2.5.1→2.5.2 true",
	"istio patch 1.24.2→1.24.3 true",
	"istio proposed 1.24.2→1.25.0 false",
	"keda patch 2.16.1→2.16.2 true",
	"knative-eventing patch 1.17.1→1.17.2 true",
	"knative-serving patch 1.17.0→1.17.1 true",
	"kpack patch 0.16.1→0.16.2 true",
	"kubernetes patch 1.29.13→1.29.15 true",
	"kubernetes patch 1.30.9→1.30.11 true",
	"kubernetes patch 1.31.5→1.31.7 true",
	"kubernetes patch 1.32.1→1.32.3 true",
	"kubernetes proposed 1.32.1→1.33.0 false",
	"kyverno patch 1.13.4→1.13.5 true",
	"prometheus-operator patch 0.80.1→0.80.2 true",
	"prometheus-operator proposed 0.80.1→0.81.0 false",
	"sealed-secrets patch 0.28.0→0.28.1 true",
	"velero patch 1.15.2→1.15.3 true",
}

func planSummary(p upstreams.Updates) []string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, c.Integration+" "+string(c.Kind)+" "+c.From+"→"+c.To+" "+map[bool]string{true: "true", false: "false"}[c.Applied])
	}
	return out
}

// TestModelVersionsCheckOnTheRealTree: --check prints the whole plan of the 12 real
// integrations, with each policy's proposal and Cloudcoil's move, and writes nothing.
func TestModelVersionsCheckOnTheRealTree(t *testing.T) {
	w := realWorld(t)
	r, log := w.run(t, true)
	if got := planSummary(r.Plan); strings.Join(got, "\n") != strings.Join(realPlan, "\n") {
		t.Errorf("plan\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(realPlan, "\n"))
	}
	if len(r.Plan.Problems) != 0 || r.Action != versions.ActionChecked || len(versionstest.Writes(log)) != 0 {
		t.Errorf("problems %v, action %s, writes %v", r.Plan.Problems, r.Action, versionstest.Writes(log))
	}
	text := r.Text()
	for _, line := range []string{
		"cert-manager: 1.17.1 → 1.18.0 (proposed for review: new minor replacing 1.17.1)\n",
		"kubernetes: 1.32.1 → 1.33.0 (proposed for review: new minor added, retiring 1.29.13)\n",
		"cloudcoil: 0.4.0 → 0.4.2 (Cloudcoil update within its compatible minor)\n",
		"cloudcoil: 0.4.0 → 0.5.1 (new Cloudcoil minor: needs a deliberate migration, not applied)\n",
		"Check only: no file, branch or pull request was changed.\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("the output lacks %q:\n%s", line, text)
		}
	}
	for _, name := range []string{"cert-manager", "fluxcd", "istio", "keda", "knative-eventing", "knative-serving", "kpack", "kubernetes", "kyverno", "prometheus-operator", "sealed-secrets", "velero"} {
		if !strings.Contains(text, "\n"+name+": ") {
			t.Errorf("the plan does not name %s", name)
		}
	}
}

// TestModelVersionsRunOnTheRealTree: one run opens one pull request whose branch holds the
// expected edits of the real files — versions moved, crd_urls left where the template's
// rewrite reaches the new lines (cert-manager's stays at 1.16.3) and moved where it does
// not (KEDA's asset name), each proposal following its policy, the template's unbounded
// requirement raised within 0.4 — and nothing else.
func TestModelVersionsRunOnTheRealTree(t *testing.T) {
	w := realWorld(t)
	main := w.Repo.Files("main")
	r, _ := w.run(t, false)
	pulls := w.Repo.PullRequests()
	if r.Action != versions.ActionOpened || len(pulls) != 1 || len(r.Plan.Problems) != 0 {
		t.Fatalf("action %s, %d pull requests, problems %v\n%s", r.Action, len(pulls), r.Plan.Problems, r.Text())
	}
	w.checkBranch(t, r.Plan)
	branch := w.Repo.Files(versions.Branch)

	// Each changed line, per file, as "-old" and "+new".
	diff := func(path string) []string {
		a, b := strings.Split(main[path], "\n"), strings.Split(branch[path], "\n")
		if len(a) != len(b) {
			t.Fatalf("%s: %d lines became %d", path, len(a), len(b))
		}
		var out []string
		for i := range a {
			if a[i] != b[i] {
				out = append(out, "-"+strings.TrimSpace(a[i]), "+"+strings.TrimSpace(b[i]))
			}
		}
		return out
	}
	for path, want := range map[string][]string{
		"models/cert-manager/cookiecutter.yaml": {`-versions: "'1.17.1'"`, `+versions: "'1.18.0'"`},
		"models/kubernetes/cookiecutter.yaml":   {`-versions: "'1.29.13', '1.30.9', '1.31.5', '1.32.1'"`, `+versions: "'1.30.11', '1.31.7', '1.32.3', '1.33.0'"`},
		"models/keda/cookiecutter.yaml": {
			"-crd_urls: https://github.com/kedacore/keda/releases/download/v2.16.1/keda-2.16.1-crds.yaml",
			"+crd_urls: https://github.com/kedacore/keda/releases/download/v2.16.2/keda-2.16.2-crds.yaml",
			`-versions: "'2.16.1'"`, `+versions: "'2.16.2'"`},
		"models/velero/cookiecutter.yaml": {`-versions: "'1.15.2'"`, `+versions: "'1.15.3'"`},
		upstreams.TemplatePyproject:       {`-"cloudcoil>=0.4.0",`, `+"cloudcoil>=0.4.2",`},
	} {
		if got := diff(path); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s changed\n%s\nwant\n%s", path, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	var changed []string
	for p, content := range branch {
		if main[p] != content {
			changed = append(changed, p)
		}
	}
	slices.Sort(changed)
	if len(changed) != 14 || !slices.Contains(changed, upstreams.FilePath) {
		t.Errorf("changed files %q, want upstreams.json, the template and the 12 cookiecutter.yaml", changed)
	}
	file, err := upstreams.Parse([]byte(branch[upstreams.FilePath]))
	if err != nil {
		t.Fatal(err)
	}
	if c := file.Cloudcoil; c.Version != "0.4.2" || c.Minor != "0.4" {
		t.Errorf("cloudcoil %+v", c)
	}
	body := pulls[0].Body
	for _, want := range []string{
		"- [ ] migrate the template and the generator to Cloudcoil 0.5",
		"- [ ] review the commit of this pull request that moves the matrix of models/upstreams.json and models/cert-manager/cookiecutter.yaml to 1.18.0",
		"- [ ] support policy and cluster CI images: add the 1.33 line, retire 1.29.13 (end of life)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the body lacks %q:\n%s", want, body)
		}
	}
	// Run again: nothing to write.
	again, log := w.run(t, false)
	if again.Action != versions.ActionUnchanged || len(versionstest.Writes(log)) != 0 {
		t.Errorf("a re-run: action %s, writes %v", again.Action, versionstest.Writes(log))
	}
	t.Logf("requests: first run %+v; re-run %+v", r.Requests, again.Requests)
}

// TestModelVersionsTemplateOnAnotherMinor: the template's requirement names another minor
// than models/upstreams.json. Cloudcoil's move is skipped and named with the template and
// the fix; every integration is still updated, and the migration item stays.
func TestModelVersionsTemplateOnAnotherMinor(t *testing.T) {
	w := realWorld(t)
	template := w.Repo.Files("main")[upstreams.TemplatePyproject]
	w.Repo.CommitOnBranch("main", "template on 0.3", map[string]string{
		upstreams.TemplatePyproject: strings.Replace(template, `"cloudcoil>=0.4.0"`, `"cloudcoil>=0.3.9"`, 1),
	})
	r, _ := w.run(t, false)
	if r.Action != versions.ActionOpened || len(r.Plan.Problems) != 1 {
		t.Fatalf("action %s, problems %+v", r.Action, r.Plan.Problems)
	}
	p := r.Plan.Problems[0]
	if p.Integration != "cloudcoil" || p.File != upstreams.TemplatePyproject || !strings.Contains(p.Problem, ":17: project.dependencies \"cloudcoil>=0.3.9\"") ||
		!strings.Contains(p.Fix, "cloudcoil.minor") {
		t.Errorf("problem %+v", p)
	}
	var kinds []string
	for _, c := range r.Plan.Changes {
		if c.Integration == "cloudcoil" {
			kinds = append(kinds, string(c.Kind))
		}
	}
	if strings.Join(kinds, " ") != "migration" || len(r.Plan.Changes) != len(realPlan)-1 {
		t.Errorf("cloudcoil changes %q, %d changes in all", kinds, len(r.Plan.Changes))
	}
	branch := w.Repo.Files(versions.Branch)
	if branch[upstreams.TemplatePyproject] != w.Repo.Files("main")[upstreams.TemplatePyproject] {
		t.Errorf("the template changed on the branch")
	}
	if f, err := upstreams.Parse([]byte(branch[upstreams.FilePath])); err != nil || f.Cloudcoil.Version != "0.4.0" {
		t.Errorf("cloudcoil.version moved without the template: %v %+v", err, f)
	}
}

// On the real tree, a maintainer declines cert-manager's new line on main: it stays out of
// every rebuilt branch, listed as declined, while its line's patch still lands, until
// upstream releases a newer version, whose proposal spends the decline.
func TestModelVersionsDeclineLastsOnTheRealTree(t *testing.T) {
	w := realWorld(t)
	r1, _ := w.run(t, false)
	certManager := upstreams.CookiecutterPath("cert-manager")
	if !strings.Contains(w.Repo.Files(versions.Branch)[certManager], "1.18.0") {
		t.Fatalf("the first run does not propose cert-manager's new line; plan:\n%s", r1.Plan.Text())
	}

	f, err := upstreams.Parse([]byte(w.Repo.Files("main")[upstreams.FilePath]))
	if err != nil {
		t.Fatal(err)
	}
	f.Integrations["cert-manager"].Declined = "1.18.0"
	declined, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	w.Repo.CommitOnBranch("main", "chore(models): decline cert-manager 1.18.0", map[string]string{upstreams.FilePath: string(declined)})

	for run := range 2 {
		r, log := w.run(t, false)
		if run == 0 && r.Action != versions.ActionUpdated {
			t.Fatalf("run after the decline: action %s", r.Action)
		}
		if run == 1 && (r.Action != versions.ActionUnchanged || len(versionstest.Writes(log)) != 0) {
			t.Fatalf("a second run after the decline: action %s, writes %v", r.Action, versionstest.Writes(log))
		}
		branch := w.Repo.Files(versions.Branch)
		if strings.Contains(branch[certManager], "1.18") || !strings.Contains(branch[certManager], `versions: "'1.17.2'"`) {
			t.Errorf("run %d: the declined proposal is back on the branch:\n%s", run, branch[certManager])
		}
		if len(r.Plan.Declined) != 1 || r.Plan.Declined[0].Integration != "cert-manager" || r.Plan.Declined[0].To != "1.18.0" {
			t.Errorf("run %d: declined %+v, want cert-manager 1.18.0", run, r.Plan.Declined)
		}
		if body := w.Repo.PullRequests()[0].Body; !strings.Contains(body, "## Declined (not proposed)") || !strings.Contains(body, "**cert-manager**") {
			t.Errorf("run %d: the pull request does not show the decline:\n%s", run, body)
		}
	}

	w.Upstream["cert-manager/cert-manager"].AddRelease(githubsim.Release{TagName: "v1.18.1"})
	r3, _ := w.run(t, false)
	if len(r3.Plan.Declined) != 0 {
		t.Errorf("a newer release is still declined: %+v", r3.Plan.Declined)
	}
	branch := w.Repo.Files(versions.Branch)
	if !strings.Contains(branch[certManager], `versions: "'1.18.1'"`) {
		t.Errorf("cert-manager 1.18.1 is not proposed on the branch:\n%s", branch[certManager])
	}
	onBranch, err := upstreams.Parse([]byte(branch[upstreams.FilePath]))
	if err != nil {
		t.Fatal(err)
	}
	if in := onBranch.Integrations["cert-manager"]; in.Declined != "" || in.Versions[len(in.Versions)-1] != "1.18.1" {
		t.Errorf("the proposal of 1.18.1 left cert-manager at %v, declined %q", in.Versions, in.Declined)
	}
}

// A 13th integration folder on the real tree, with a cookiecutter.yaml but no entry in
// upstreams.json, is named with its fix in the output and the pull request: update-repos
// would publish it while nothing updates it. The 12 listed ones are planned as before.
func TestModelVersionsNamesAnUnlistedIntegration(t *testing.T) {
	w := realWorld(t)
	w.Repo.CommitOnBranch("main", "feat(models): add argo-cd", map[string]string{
		"models/argo-cd/cookiecutter.yaml": w.Repo.Files("main")[upstreams.CookiecutterPath("velero")],
		"models/argo-cd/README.md":         "# argo-cd\n",
		// A folder without cookiecutter.yaml is not an integration.
		"models/notes/README.md": "notes\n",
	})
	r, _ := w.run(t, false)
	if got := planSummary(r.Plan); strings.Join(got, "\n") != strings.Join(realPlan, "\n") {
		t.Errorf("plan\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(realPlan, "\n"))
	}
	if len(r.Plan.Problems) != 1 {
		t.Fatalf("problems %+v, want argo-cd's alone", r.Plan.Problems)
	}
	p := r.Plan.Problems[0]
	if p.Integration != "argo-cd" || p.File != "models/argo-cd/cookiecutter.yaml" ||
		!strings.Contains(p.Problem, "no entry in models/upstreams.json") || !strings.Contains(p.Problem, "update-repos publishes it") ||
		!strings.Contains(p.Fix, "add integrations.argo-cd to models/upstreams.json") {
		t.Errorf("problem %+v", p)
	}
	if body := w.Repo.PullRequests()[0].Body; !strings.Contains(body, "- **argo-cd** `models/argo-cd/cookiecutter.yaml`: has no entry") {
		t.Errorf("the pull request does not name argo-cd:\n%s", body)
	}
	if text := r.Text(); !strings.Contains(text, "argo-cd") {
		t.Errorf("the output does not name argo-cd:\n%s", text)
	}
}
