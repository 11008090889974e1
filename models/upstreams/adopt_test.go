package upstreams_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/upstreams/upstreamstest"
)

// realTree reads the real Cloudcoil tree's cookiecutter.yaml files (by integration) and
// its model template's pyproject.toml.
func realTree(t *testing.T) (map[string][]byte, []byte) {
	t.Helper()
	root := filepath.Join(corpus.Dir(t, "cloudcoil"), "tree")
	entries, err := os.ReadDir(filepath.Join(root, "models"))
	if err != nil {
		t.Fatal(err)
	}
	cookiecutters := map[string][]byte{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(upstreams.CookiecutterPath(e.Name()))))
		if err != nil {
			t.Fatal(err)
		}
		cookiecutters[e.Name()] = b
	}
	template, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(upstreams.TemplatePyproject)))
	if err != nil {
		t.Fatal(err)
	}
	return cookiecutters, template
}

// TestProposeFileRoundTripsTheRealTree proposes models/upstreams.json for the 12 real
// integrations: the file parses with every integration kept, every real cookiecutter.yaml
// agrees with it under the template's rewrite (crd_urls older than versions included), it
// infers everything but the policies, which it names, and it says how it read Cloudcoil.
func TestProposeFileRoundTripsTheRealTree(t *testing.T) {
	cookiecutters, template := realTree(t)
	p, err := upstreams.ProposeFile(cookiecutters, template, "cloudcoil", upstreams.CloudcoilEvidence{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := p.File.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	f, err := upstreams.Parse(raw)
	if err != nil {
		t.Fatalf("the proposal does not parse: %v\n%s", err, raw)
	}
	if len(f.Problems) != 0 || len(f.Integrations) != 12 {
		t.Fatalf("%d integrations, problems %v", len(f.Integrations), f.Problems)
	}
	again, _ := f.Marshal()
	if string(again) != string(raw) {
		t.Errorf("the proposal is not in the machine format")
	}
	for name, b := range cookiecutters {
		if err := upstreams.CheckCookiecutter(b, *f.Integrations[name]); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if len(p.Unresolved) != 0 {
		t.Errorf("unresolved on the real tree: %+v", p.Unresolved)
	}
	var assumed []string
	for _, a := range p.Assumed {
		assumed = append(assumed, a.Path)
	}
	// PyPI unread: the version is the lower bound's, and says so.
	if len(assumed) != 14 || !slices.Contains(assumed, "cloudcoil.minor") || !slices.Contains(assumed, "cloudcoil.version") || !slices.Contains(assumed, "integrations.velero.policy") {
		t.Errorf("assumed %q, want cloudcoil.version, cloudcoil.minor and each integration's policy", assumed)
	}
	if c := f.Cloudcoil; c.Package != "cloudcoil" || c.Version != "0.4.0" || c.Minor != "0.4" || p.Migration != "" {
		t.Errorf("cloudcoil = %+v (migration %q), want 0.4.0 in 0.4 (the template's cloudcoil>=0.4.0)", c, p.Migration)
	}
	for name, want := range map[string]string{
		"cert-manager":     "cert-manager/cert-manager v newest-minor https://github.com/cert-manager/cert-manager/releases/download/v{version}/cert-manager.crds.yaml",
		"istio":            "istio/istio  newest-minor https://raw.githubusercontent.com/istio/istio/refs/tags/{version}/manifests/charts/base/files/crd-all.gen.yaml",
		"keda":             "kedacore/keda v newest-minor https://github.com/kedacore/keda/releases/download/v{version}/keda-{version}-crds.yaml",
		"knative-eventing": "knative/eventing knative-v newest-minor https://github.com/knative/eventing/releases/download/knative-v{version}/eventing-crds.yaml",
		"kubernetes":       "kubernetes/kubernetes v maintained-lines https://raw.githubusercontent.com/kubernetes/kubernetes/refs/tags/v{version}/api/openapi-spec/swagger.json",
		"fluxcd":           "fluxcd/flux2 v newest-minor https://github.com/fluxcd/flux2/releases/download/v{version}/install.yaml",
	} {
		in := f.Integrations[name]
		got := in.Repository + " " + *in.TagPrefix + " " + in.Policy + " " + in.SchemaURLs[0].URL
		if got != want {
			t.Errorf("%s: %s\nwant %s", name, got, want)
		}
	}
	if k := f.Integrations["kubernetes"]; k.MaintainedLines != 4 || strings.Join(k.Versions, " ") != "1.29.13 1.30.9 1.31.5 1.32.1" {
		t.Errorf("kubernetes: %d lines, %v", k.MaintainedLines, k.Versions)
	}
	if n := len(f.Integrations["velero"].SchemaURLs); n != 13 {
		t.Errorf("velero has %d schema URLs, want 13", n)
	}
	text, err := p.Text()
	if err != nil || !strings.Contains(text, "Inferred by a rule of thumb (confirm):\n- cloudcoil.version:") || !strings.Contains(text, "\n- cloudcoil.minor:") || !strings.HasSuffix(text, string(raw)) {
		t.Errorf("Text():\n%s", text)
	}
}

func TestProposeFileNamesWhatItCannotInfer(t *testing.T) {
	template := upstreamstest.ReadFile(t, upstreams.TemplatePyproject)
	tests := []struct {
		name       string
		yaml       string
		template   []byte
		unresolved []string
	}{
		{"not GitHub", "default_context:\n  crd_urls: https://example.com/releases/download/v1.2.3/crds.yaml\n  versions: \"'1.2.3'\"\n", template,
			[]string{"integrations.x.repository"}},
		{"rewrite finds no version", "default_context:\n  crd_urls: https://github.com/o/x/releases/download/latest/crds.yaml\n  versions: \"'1.2.3'\"\n", template,
			[]string{"integrations.x.schema_urls"}},
		{"another path before the version", "default_context:\n  crd_urls: https://github.com/o/x/archive/v1.2.3/crds.yaml\n  versions: \"'1.2.3'\"\n  version_replacement_sed: archive/v\n", template,
			[]string{"integrations.x.repository", "integrations.x.tag_prefix"}},
		{"no template", "default_context:\n  crd_urls: https://github.com/o/x/releases/download/v1.2.3/crds.yaml\n  versions: \"'1.2.3'\"\n", nil,
			[]string{"cloudcoil.version", "cloudcoil.minor"}},
		{"a template without a lower bound", "default_context:\n  crd_urls: https://github.com/o/x/releases/download/v1.2.3/crds.yaml\n  versions: \"'1.2.3'\"\n",
			[]byte("[project]\ndependencies = [\"cloudcoil\"]\n"), []string{"cloudcoil.version", "cloudcoil.minor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := upstreams.ProposeFile(map[string][]byte{"x": []byte(tt.yaml)}, tt.template, "cloudcoil", upstreams.CloudcoilEvidence{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range p.Unresolved {
				got = append(got, f.Path)
			}
			if strings.Join(got, " ") != strings.Join(tt.unresolved, " ") {
				t.Errorf("unresolved %q, want %q", got, tt.unresolved)
			}
			// What it could not infer keeps the file from validating until it is filled in.
			raw, _ := p.File.Marshal()
			if f, err := upstreams.Parse(raw); err == nil && len(f.Problems) == 0 {
				t.Errorf("a proposal with unresolved fields validates:\n%s", raw)
			}
		})
	}
	if _, err := upstreams.ProposeFile(map[string][]byte{"x": []byte("default_context: [")}, template, "cloudcoil", upstreams.CloudcoilEvidence{}); err == nil || !strings.Contains(err.Error(), "models/x/cookiecutter.yaml") {
		t.Errorf("an unreadable cookiecutter.yaml: err = %v", err)
	}
}

// TestPoliciesMatchTheRealHistory replays the real "Bump model versions (#110)": it touched
// exactly the cookiecutter.yaml of cert-manager, fluxcd, kyverno and prometheus-operator,
// whose crd_urls still name the version before. From that version, a newest-minor proposal
// of today's version gives each real file byte for byte: the line replaced, crd_urls left
// for update_releases.yml to rewrite. Kubernetes keeps several lines: maintained-lines.
func TestPoliciesMatchTheRealHistory(t *testing.T) {
	history := string(corpus.Read(t, "cloudcoil", "history.txt"))
	commit, _, _ := strings.Cut(history[strings.Index(history, "Bump model versions (#110)"):], "\ncommit ")
	var touched []string
	for _, line := range strings.Split(commit, "\n")[1:] {
		if f := strings.Split(line, "\t"); len(f) == 2 {
			touched = append(touched, f[1])
		}
	}
	bumped := []string{"cert-manager", "fluxcd", "kyverno", "prometheus-operator"}
	var want []string
	for _, name := range bumped {
		want = append(want, upstreams.CookiecutterPath(name))
	}
	if strings.Join(touched, " ") != strings.Join(want, " ") {
		t.Fatalf("#110 touched %q", touched)
	}

	cookiecutters, template := realTree(t)
	p, err := upstreams.ProposeFile(cookiecutters, template, "cloudcoil", upstreams.CloudcoilEvidence{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range bumped {
		now := p.File.Integrations[name]
		if now.Policy != upstreams.PolicyNewestMinor || len(now.Versions) != 1 {
			t.Fatalf("%s: policy %s, lines %v", name, now.Policy, now.Versions)
		}
		// The state before #110: one line, at the version crd_urls still names.
		crd := regexpFind(t, string(cookiecutters[name]), `download/v([0-9]+\.[0-9]+\.[0-9]+)/`)
		realLine := fmt.Sprintf("versions: \"'%s'\"", now.Versions[0])
		before := strings.Replace(string(cookiecutters[name]), realLine, fmt.Sprintf("versions: \"'%s'\"", crd), 1)
		prior := *now
		prior.Versions = []string{crd}
		f := &upstreams.File{Cloudcoil: p.File.Cloudcoil, Integrations: map[string]*upstreams.Integration{name: &prior}}
		if errs := f.Validate(); len(errs) > 0 {
			t.Fatal(errs)
		}
		found := versions(t, "v"+crd, "v"+now.Versions[0])
		plan := upstreams.Plan(f, map[string][]upstreams.Version{name: found}, upstreams.PyPIInfo{})
		if len(plan.Changes) != 1 || plan.Changes[0].Kind != upstreams.KindProposed || strings.Join(plan.Changes[0].Retires, " ") != crd {
			t.Fatalf("%s: plan %+v, want one proposal replacing %s", name, plan.Changes, crd)
		}
		after, err := upstreams.ProposeToCookiecutter([]byte(before), prior, plan.Changes[0])
		if err != nil {
			t.Fatal(err)
		}
		if string(after) != string(cookiecutters[name]) {
			t.Errorf("%s: the proposal gives\n%s\nthe real file is\n%s", name, after, cookiecutters[name])
		}
	}
	if k := p.File.Integrations["kubernetes"]; k.Policy != upstreams.PolicyMaintainedLines || k.MaintainedLines != 4 {
		t.Errorf("kubernetes: %s %d", k.Policy, k.MaintainedLines)
	}
}

func regexpFind(t *testing.T, s, expr string) string {
	t.Helper()
	m := regexp.MustCompile(expr).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("%s not in %q", expr, s)
	}
	return m[1]
}

// With the real evidence, Cloudcoil's releases (tags.txt) and VERSIONING.md, the proposal
// stands on 0.5 at its newest release, and names the template's migration off 0.4.
func TestProposeFileWithTheRealEvidence(t *testing.T) {
	cookiecutters, template := realTree(t)
	versioning, err := os.ReadFile(filepath.Join(corpus.Dir(t, "cloudcoil"), "tree", upstreams.VersioningPath))
	if err != nil {
		t.Fatal(err)
	}
	p, err := upstreams.ProposeFile(cookiecutters, template, "cloudcoil", upstreams.CloudcoilEvidence{Releases: realReleases(t), Versioning: versioning})
	if err != nil {
		t.Fatal(err)
	}
	if c := p.File.Cloudcoil; c.Version != "0.5.8" || c.Minor != "0.5" {
		t.Errorf("cloudcoil = %+v, want 0.5.8 in 0.5", c)
	}
	text, err := p.Text()
	for _, want := range []string{
		"- cloudcoil.minor: " + upstreams.TemplatePyproject + ":17 requires \"cloudcoil>=0.4.0\"",
		"locks the newest release it admits, 0.5.8",
		"VERSIONING.md recommends cloudcoil~=0.5.0: agrees",
		"Cloudcoil migration (part of the adoption):\n- the lower bound of \"cloudcoil>=0.4.0\"",
		"raise it to >=0.5.8",
	} {
		if err != nil || !strings.Contains(text, want) {
			t.Errorf("the proposal lacks %q (%v):\n%s", want, err, text)
		}
	}
	for _, a := range p.Assumed {
		if a.Path == "cloudcoil.version" {
			t.Errorf("with PyPI read, cloudcoil.version is not a guess: %+v", a)
		}
	}
}
