package upstreams_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/upstreams/upstreamstest"
)

// planFile builds a one-integration file for the rule cases.
func planFile(t *testing.T, versions []string, policy string, maintained int) *upstreams.File {
	t.Helper()
	v := "v"
	in := &upstreams.Integration{
		Repository: "example/project", TagPrefix: &v, Versions: versions,
		SchemaURLs: []upstreams.SchemaURL{{URL: "https://example.com/v{version}/crds.yaml"}},
		Policy:     policy, MaintainedLines: maintained,
	}
	if policy == "" {
		in.Policy = upstreams.PolicyNewestMinor
		if len(versions) > 1 {
			in.Policy, in.MaintainedLines = upstreams.PolicyMaintainedLines, len(versions)
		}
	}
	f := &upstreams.File{
		Cloudcoil:    upstreams.Cloudcoil{Package: "cloudcoil", Version: "0.5.3", Minor: "0.5"},
		Integrations: map[string]*upstreams.Integration{"project": in},
	}
	if errs := f.Validate(); len(errs) > 0 {
		t.Fatalf("invalid test file: %v", errs)
	}
	return f
}

func versions(t *testing.T, tags ...string) []upstreams.Version {
	t.Helper()
	var out []upstreams.Version
	for _, tag := range tags {
		v, err := upstreams.ParseVersion(strings.TrimPrefix(tag, "v"))
		if err != nil {
			t.Fatal(err)
		}
		v.Tag = tag
		out = append(out, v)
	}
	return out
}

// summary renders changes compactly: "kind from→to applied".
func summary(p upstreams.Updates) []string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, fmt.Sprintf("%s %s %s→%s %v", c.Integration, c.Kind, c.From, c.To, c.Applied))
	}
	return out
}

func TestPlanIntegrationRules(t *testing.T) {
	k8s := 2
	tests := []struct {
		name       string
		matrix     []string
		policy     string
		maintained int
		found      []string
		want       []string
	}{
		{"nothing discovered", []string{"1.2.3"}, "", 0, nil, nil},
		{"up to date", []string{"1.2.3"}, "", 0, []string{"v1.2.3", "v1.2.2"}, nil},
		{"patch in line, numeric", []string{"1.2.3"}, "", 0, []string{"v1.2.9", "v1.2.10", "v1.2.4"},
			[]string{"project patch 1.2.3→1.2.10 true"}},
		{"never downgrades", []string{"1.2.5"}, "", 0, []string{"v1.2.4"}, nil},
		{"older line ignored", []string{"1.2.3"}, "", 0, []string{"v1.1.9"}, nil},
		{"each tracked line", []string{"1.1.0", "1.2.0"}, "", 0, []string{"v1.1.4", "v1.2.1"},
			[]string{"project patch 1.1.0→1.1.4 true", "project patch 1.2.0→1.2.1 true"}},
		{"gap line between tracked lines ignored", []string{"1.1.0", "1.3.0"}, "", 0, []string{"v1.2.7"}, nil},
		{"newer minor proposed", []string{"1.2.3"}, "", 0, []string{"v1.3.0", "v1.3.1"},
			[]string{"project proposed 1.2.3→1.3.1 false"}},
		{"newer major proposed, one proposal", []string{"1.2.3"}, "", 0, []string{"v1.3.1", "v2.0.0", "v1.4.0"},
			[]string{"project proposed 1.2.3→2.0.0 false"}},
		{"patch and proposal", []string{"1.2.3"}, "newest-minor", 0, []string{"v1.2.4", "v1.3.0"},
			[]string{"project patch 1.2.3→1.2.4 true", "project proposed 1.2.3→1.3.0 false"}},
		{"maintained lines: patches of each", []string{"1.31.5", "1.32.1"}, "maintained-lines", k8s, []string{"v1.31.6", "v1.32.3", "v1.32.2"},
			[]string{"project patch 1.31.5→1.31.6 true", "project patch 1.32.1→1.32.3 true"}},
		{"maintained lines: newer minor proposed", []string{"1.31.5", "1.32.1"}, "maintained-lines", k8s, []string{"v1.33.0", "v1.34.1"},
			[]string{"project proposed 1.32.1→1.34.1 false"}},
		{"maintained lines: older line ignored", []string{"1.31.5", "1.32.1"}, "maintained-lines", k8s, []string{"v1.30.14"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := planFile(t, tt.matrix, tt.policy, tt.maintained)
			got := upstreams.Plan(f, map[string][]upstreams.Version{"project": versions(t, tt.found...)}, upstreams.PyPIInfo{})
			if strings.Join(summary(got), "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Plan =\n%s\nwant\n%s", strings.Join(summary(got), "\n"), strings.Join(tt.want, "\n"))
			}
			if got.Empty() != (len(tt.want) == 0) {
				t.Errorf("Empty() = %v with %d changes", got.Empty(), len(got.Changes))
			}
			for _, c := range got.Changes {
				if c.ReleaseURL != "https://github.com/example/project/releases/tag/v"+c.To {
					t.Errorf("release URL = %s", c.ReleaseURL)
				}
				wantURLs := 0
				// A proposal carries the schema URLs its commit adds with the matrix entry.
				if c.Kind == upstreams.KindPatch || c.Kind == upstreams.KindProposed {
					wantURLs = 1
					if c.SchemaURLs[0] != "https://example.com/v"+c.To+"/crds.yaml" {
						t.Errorf("schema URL = %v, want the one of %s", c.SchemaURLs, c.To)
					}
				}
				if len(c.SchemaURLs) != wantURLs {
					t.Errorf("%s change carries %d schema URLs, want %d", c.Kind, len(c.SchemaURLs), wantURLs)
				}
			}
		})
	}
}

func TestPlanCloudcoilRules(t *testing.T) {
	tests := []struct {
		name     string
		releases []upstreams.PyPIRelease
		want     []string
	}{
		{"none", nil, nil},
		{"newest patch in minor", []upstreams.PyPIRelease{{Version: "0.5.3"}, {Version: "0.5.10"}, {Version: "0.5.9"}},
			[]string{"cloudcoil cloudcoil 0.5.3→0.5.10 true"}},
		{"yanked skipped", []upstreams.PyPIRelease{{Version: "0.5.4"}, {Version: "0.5.5", Yanked: true}},
			[]string{"cloudcoil cloudcoil 0.5.3→0.5.4 true"}},
		{"pre, dev and post releases never", []upstreams.PyPIRelease{{Version: "0.5.4rc1"}, {Version: "0.5.4.dev0"}, {Version: "0.5.4a1"}, {Version: "0.5.3.post1"}}, nil},
		{"never downgrades", []upstreams.PyPIRelease{{Version: "0.5.1"}, {Version: "0.4.9"}}, nil},
		{"two-part version in minor", []upstreams.PyPIRelease{{Version: "0.5"}}, nil},
		{"new minor needs migration", []upstreams.PyPIRelease{{Version: "0.6.0"}, {Version: "0.6.1"}, {Version: "0.6.2", Yanked: true}, {Version: "0.7.0b1"}},
			[]string{"cloudcoil migration 0.5.3→0.6.1 false"}},
		{"new major needs migration", []upstreams.PyPIRelease{{Version: "0.5.4"}, {Version: "1.0"}},
			[]string{"cloudcoil cloudcoil 0.5.3→0.5.4 true", "cloudcoil migration 0.5.3→1.0 false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := planFile(t, []string{"1.0.0"}, "", 0)
			got := upstreams.Plan(f, nil, upstreams.PyPIInfo{Name: "cloudcoil", Releases: tt.releases})
			if strings.Join(summary(got), "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Plan =\n%s\nwant\n%s", strings.Join(summary(got), "\n"), strings.Join(tt.want, "\n"))
			}
			for _, c := range got.Changes {
				if c.ReleaseURL != "https://pypi.org/project/cloudcoil/"+c.To+"/" {
					t.Errorf("release URL = %s", c.ReleaseURL)
				}
			}
		})
	}
}

// fixturePlan runs discovery and planning over the fixture, as the flow does.
func fixturePlan(t *testing.T) (*upstreams.File, upstreams.Updates) {
	t.Helper()
	f, _ := fixtureFile(t)
	releases := upstreamstest.Releases()
	discovered := map[string][]upstreams.Version{}
	for _, name := range f.Names() {
		in := f.Integrations[name]
		discovered[name] = upstreams.Candidates(*in, releases[in.Repository])
	}
	info := upstreams.PyPIInfo{Name: "cloudcoil", Releases: []upstreams.PyPIRelease{
		{Version: "0.5.3"}, {Version: "0.5.4"}, {Version: "0.5.5", Yanked: true}, {Version: "0.5.6rc1"}, {Version: "0.6.1"},
	}}
	return f, upstreams.Plan(f, discovered, info)
}

func TestPlanFixture(t *testing.T) {
	_, plan := fixturePlan(t)
	want := []string{
		"cloudcoil cloudcoil 0.5.3→0.5.4 true",
		"cloudcoil migration 0.5.3→0.6.1 false",
		"cert-manager patch 1.16.3→1.16.5 true",
		"cert-manager proposed 1.16.3→1.17.1 false",
		"istio patch 1.24.2→1.24.4 true",
		"istio proposed 1.24.2→1.25.1 false",
		"keda proposed 2.16.1→2.17.0 false",
		"knative-eventing patch 1.16.1→1.16.2 true",
		"knative-eventing proposed 1.16.1→1.17.0 false",
		"knative-serving patch 1.16.0→1.16.1 true",
		"kubernetes patch 1.29.13→1.29.14 true",
		"kubernetes patch 1.30.9→1.30.10 true",
		"kubernetes patch 1.31.5→1.31.6 true",
		"kubernetes patch 1.32.1→1.32.2 true",
		"kubernetes proposed 1.32.1→1.33.1 false",
		"kyverno patch 1.13.2→1.13.4 true",
	}
	if got := summary(plan); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("fixture plan =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range plan.Changes {
		if c.Integration == "knative-eventing" && c.ReleaseURL != "https://github.com/knative/eventing/releases/tag/knative-v"+c.To {
			t.Errorf("knative release URL = %s", c.ReleaseURL)
		}
		if c.Integration == "istio" && c.ReleaseURL != "https://github.com/istio/istio/releases/tag/"+c.To {
			t.Errorf("istio release URL = %s", c.ReleaseURL)
		}
	}

	text := plan.Text()
	for _, line := range []string{
		"istio: 1.24.2 → 1.24.4 (patch)\n",
		"istio: 1.24.2 → 1.25.1 (proposed for review: new minor replacing 1.24.2)\n",
		"kubernetes: 1.32.1 → 1.33.1 (proposed for review: new minor added, retiring 1.29.13)\n",
		"cloudcoil: 0.5.3 → 0.6.1 (new Cloudcoil minor: needs a deliberate migration, not applied)\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("Text() lacks %q:\n%s", line, text)
		}
	}
	if n := strings.Count(text, "\n"); n != len(plan.Changes) {
		t.Errorf("Text() has %d lines for %d changes", n, len(plan.Changes))
	}

	if got, want := plan.PRTitle(), "chore(models): update 10 upstream model versions"; got != want {
		t.Errorf("PRTitle() = %q, want %q", got, want)
	}
	body := plan.PRBody()
	applied, review, _ := strings.Cut(body, "## Needs review")
	for _, c := range plan.Changes {
		link := fmt.Sprintf("(%s)", c.ReleaseURL)
		section := applied
		if !c.Applied {
			section = review
		}
		if !strings.Contains(section, link) {
			t.Errorf("PRBody() lists %s %s → %s outside its section (applied=%v)", c.Integration, c.From, c.To, c.Applied)
		}
	}
	if !strings.Contains(review, "**kubernetes** 1.32.1 → [v1.33.1](https://github.com/kubernetes/kubernetes/releases/tag/v1.33.1): proposed for review: new minor added, retiring 1.29.13") {
		t.Errorf("PRBody() review section:\n%s", review)
	}
	if _, again := fixturePlan(t); again.PRBody() != body || again.PRTitle() != plan.PRTitle() {
		t.Errorf("PR text is not deterministic")
	}

	b, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	var back upstreams.Updates
	if err := json.Unmarshal(b, &back); err != nil || len(back.Changes) != len(plan.Changes) {
		t.Fatalf("JSON round trip: %v", err)
	}
	if !strings.Contains(string(b), `{"integration":"istio","kind":"patch","from":"1.24.2","to":"1.24.4","tag":"1.24.4","release_url":"https://github.com/istio/istio/releases/tag/1.24.4","schema_urls":["https://raw.githubusercontent.com/istio/istio/refs/tags/1.24.4/manifests/charts/base/files/crd-all.gen.yaml"],"applied":true}`) ||
		!strings.Contains(string(b), `"kind":"proposed","from":"1.32.1","to":"1.33.1","tag":"v1.33.1","release_url":"https://github.com/kubernetes/kubernetes/releases/tag/v1.33.1","schema_urls":["https://raw.githubusercontent.com/kubernetes/kubernetes/refs/tags/v1.33.1/api/openapi-spec/swagger.json"],"policy":"maintained-lines","retires":["1.29.13"],"applied":false}`) {
		t.Errorf("JSON shape: %s", b)
	}
}

func TestPlanEmptyAndTitles(t *testing.T) {
	f := planFile(t, []string{"1.2.3"}, "", 0)
	empty := upstreams.Plan(f, nil, upstreams.PyPIInfo{})
	if !empty.Empty() || empty.HasEdits() || empty.Text() != "No updates available.\n" {
		t.Errorf("empty plan: Empty=%v HasEdits=%v Text=%q", empty.Empty(), empty.HasEdits(), empty.Text())
	}
	if b, _ := json.Marshal(empty); string(b) != `{"changes":[],"problems":[]}` {
		t.Errorf("empty plan JSON = %s, want an empty list, not null", b)
	}
	if !strings.Contains(empty.PRBody(), "No updates are pending.") {
		t.Errorf("empty PRBody() = %q", empty.PRBody())
	}

	one := upstreams.Plan(f, map[string][]upstreams.Version{"project": versions(t, "v1.2.4")}, upstreams.PyPIInfo{})
	if got := one.PRTitle(); got != "chore(models): update project to 1.2.4" {
		t.Errorf("PRTitle() = %q", got)
	}
	proposals := upstreams.Plan(f, map[string][]upstreams.Version{"project": versions(t, "v1.3.0")}, upstreams.PyPIInfo{})
	if proposals.Empty() || proposals.HasEdits() || proposals.PRTitle() != "chore(models): upstream model versions to review" {
		t.Errorf("proposals-only plan: Empty=%v HasEdits=%v title=%q", proposals.Empty(), proposals.HasEdits(), proposals.PRTitle())
	}
	if strings.Contains(proposals.PRBody(), "## Applied") || !strings.Contains(proposals.PRBody(), "## Needs review") {
		t.Errorf("proposals-only PRBody():\n%s", proposals.PRBody())
	}
}
