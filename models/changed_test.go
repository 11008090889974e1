package models

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

var integrations = []string{"argocd", "cert-manager", "fluxcd", "kubernetes"}

func TestChangedIntegrations(t *testing.T) {
	tests := []struct {
		name       string
		paths      []string
		want       []string
		everything bool
	}{
		{name: "nothing changed"},
		{name: "one integration", paths: []string{"models/fluxcd/cookiecutter.yaml"}, want: []string{"fluxcd"}},
		{name: "deduplicated and sorted", paths: []string{
			"models/kubernetes/pyproject.toml", "models/fluxcd/README.md", "./models/kubernetes/tests/test_resources.py",
		}, want: []string{"fluxcd", "kubernetes"}},
		{name: "unknown integration folder", paths: []string{"models/removed/cookiecutter.yaml"}},
		{name: "file directly in models", paths: []string{"models/index.html"}},
		{name: "integration name as a prefix only", paths: []string{"models/fluxcd-extra/x", "models/fluxcd"}},
		{name: "docs and core code", paths: []string{"docs/index.md", "cloudcoil/resources.py", "tests/test_config.py"}},
		{name: "shared template", paths: []string{"models/fluxcd/README.md", "cookiecutter/models-{{ cookiecutter.model_name }}/Makefile"},
			want: integrations, everything: true},
		{name: "no template folder besides cookiecutter", paths: []string{"template/x", "requirements/codegen.txt"}},
		{name: "tools", paths: []string{"tools/update_model_versions.py"}, want: integrations, everything: true},
		{name: "root pyproject is core's", paths: []string{"pyproject.toml"}},
		{name: "nested pyproject is not shared", paths: []string{"docs/pyproject.toml"}},
		{name: "root lockfile is core's", paths: []string{"uv.lock"}},
		{name: "root Makefile holds gen-repo-%", paths: []string{"Makefile"}, want: integrations, everything: true},
		{name: "model workflow", paths: []string{".github/workflows/model_ci.yml"}, want: integrations, everything: true},
		{name: "other workflow", paths: []string{".github/workflows/docs.yml"}},
		{name: "upstreams file without its diff", paths: []string{"models/upstreams.json"}, want: integrations, everything: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, everything := ChangedIntegrations(tt.paths, integrations)
			if !slices.Equal(got, tt.want) || everything != tt.everything {
				t.Errorf("ChangedIntegrations = %q, %v; want %q, %v", got, everything, tt.want, tt.everything)
			}
		})
	}
}

func TestChangedIntegrationsCustomRules(t *testing.T) {
	rules := ChangeRules{IntegrationsDir: "integrations", Shared: []string{"common/*.yaml"}}
	all := []string{"b", "a", "b"}
	if got, every := rules.Changed([]string{"common/base.yaml"}, all); !every || !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("shared: %q, %v", got, every)
	}
	if got, every := rules.Changed([]string{"common/deep/base.yaml", "integrations/a/x"}, all); every || !slices.Equal(got, []string{"a"}) {
		t.Errorf("per integration: %q, %v", got, every)
	}
}

const upstreamsV1 = `{
  "cloudcoil": {"package": "cloudcoil", "version": "0.7.1", "minor": "0.7"},
  "integrations": {
    "fluxcd": {"repository": "fluxcd/flux2", "tag_prefix": "v", "versions": ["2.9.5"]},
    "kubernetes": {"repository": "kubernetes/kubernetes", "tag_prefix": "v", "versions": ["1.31.5", "1.32.1"]},
    "argocd": {"repository": "argoproj/argo-cd", "tag_prefix": "v", "versions": ["3.1.0"]}
  }
}`

func TestChangedUpstreamEntries(t *testing.T) {
	tests := []struct {
		name    string
		old     string
		new     func(doc map[string]any)
		raw     string
		want    []string
		wantErr string
	}{
		{name: "identical", new: func(map[string]any) {}},
		{name: "reformatted and reordered", raw: `{"integrations":{"argocd":{"versions":["3.1.0"],"tag_prefix":"v","repository":"argoproj/argo-cd"},
			"kubernetes":{"versions":["1.31.5","1.32.1"],"repository":"kubernetes/kubernetes","tag_prefix":"v"},
			"fluxcd":{"repository":"fluxcd/flux2","versions":["2.9.5"],"tag_prefix":"v"}},
			"cloudcoil":{"minor":"0.7","version":"0.7.1","package":"cloudcoil"}}`},
		{name: "one version bumped", new: func(doc map[string]any) {
			entry(doc, "kubernetes")["versions"] = []any{"1.31.6", "1.32.1"}
		}, want: []string{"kubernetes"}},
		{name: "array order counts", new: func(doc map[string]any) {
			entry(doc, "kubernetes")["versions"] = []any{"1.32.1", "1.31.5"}
		}, want: []string{"kubernetes"}},
		{name: "added and removed", new: func(doc map[string]any) {
			ints := doc["integrations"].(map[string]any)
			delete(ints, "argocd")
			ints["velero"] = map[string]any{"repository": "velero-io/velero"}
		}, want: []string{"argocd", "velero"}},
		{name: "cloudcoil requirement is not an entry", new: func(doc map[string]any) {
			doc["cloudcoil"].(map[string]any)["version"] = "0.7.2"
		}},
		{name: "file added", old: " ", raw: upstreamsV1, want: []string{"argocd", "fluxcd", "kubernetes"}},
		{name: "file removed", raw: "", want: []string{"argocd", "fluxcd", "kubernetes"}},
		{name: "number respelled counts", old: `{"integrations": {"a": {"n": 1}}}`, raw: `{"integrations": {"a": {"n": 1.0}}}`, want: []string{"a"}},
		{name: "invalid new", raw: `{"integrations": `, wantErr: "new upstreams"},
		{name: "invalid old", old: `[]`, raw: upstreamsV1, wantErr: "old upstreams"},
		{name: "integrations not an object", raw: `{"integrations": []}`, wantErr: `"integrations" is not an object`},
		{name: "null document", raw: `null`, wantErr: "not an object"},
		{name: "trailing data", raw: upstreamsV1 + "{}", wantErr: "trailing data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := tt.old
			if old == "" {
				old = upstreamsV1
			}
			newJSON := tt.raw
			if tt.new != nil {
				var doc map[string]any
				if err := json.Unmarshal([]byte(upstreamsV1), &doc); err != nil {
					t.Fatal(err)
				}
				tt.new(doc)
				b, err := json.Marshal(doc)
				if err != nil {
					t.Fatal(err)
				}
				newJSON = string(b)
			}
			got, err := ChangedUpstreamEntries([]byte(old), []byte(newJSON))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want …%s…", err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("ChangedUpstreamEntries = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func entry(doc map[string]any, name string) map[string]any {
	return doc["integrations"].(map[string]any)[name].(map[string]any)
}

func TestChangedIntegrationsWithUpstreams(t *testing.T) {
	bumped := strings.Replace(upstreamsV1, `"2.9.5"`, `"2.9.6"`, 1)
	tests := []struct {
		name       string
		paths      []string
		newJSON    string
		want       []string
		everything bool
		wantErr    bool
	}{
		{name: "entry changed", paths: []string{"models/upstreams.json"}, newJSON: bumped, want: []string{"fluxcd"}},
		{name: "entry and folder", paths: []string{"models/upstreams.json", "models/argocd/README.md"}, newJSON: bumped,
			want: []string{"argocd", "fluxcd"}},
		{name: "entry of an unknown integration", paths: []string{"models/upstreams.json"},
			newJSON: strings.Replace(upstreamsV1, `"integrations": {`, `"integrations": {"new": {},`, 1)},
		{name: "cloudcoil requirement is shared", paths: []string{"models/upstreams.json"},
			newJSON: strings.Replace(upstreamsV1, `"0.7.1"`, `"0.7.2"`, 1), want: integrations, everything: true},
		{name: "diff ignored when the file did not change", paths: []string{"models/kubernetes/x"}, newJSON: bumped,
			want: []string{"kubernetes"}},
		{name: "unreadable file", paths: []string{"models/upstreams.json"}, newJSON: "{", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, everything, err := ChangedIntegrationsWithUpstreams(tt.paths, integrations, []byte(upstreamsV1), []byte(tt.newJSON))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) || everything != tt.everything {
				t.Errorf("= %q, %v; want %q, %v", got, everything, tt.want, tt.everything)
			}
		})
	}
}

// FuzzChangedUpstreamEntries checks that comparing a file with itself finds
// no change, and that the comparison is symmetric.
func FuzzChangedUpstreamEntries(f *testing.F) {
	f.Add([]byte(upstreamsV1), []byte(strings.Replace(upstreamsV1, "2.9.5", "2.9.6", 1)))
	f.Add([]byte(`{"integrations": {"a": {"n": 1e3}}}`), []byte(`{"integrations": {"a": {"n": 1000}}, "x": null}`))
	f.Add([]byte(""), []byte(`{"integrations": null}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		self, err := ChangedUpstreamEntries(a, a)
		if err == nil && len(self) != 0 {
			t.Fatalf("a file differs from itself: %q", self)
		}
		ab, errAB := ChangedUpstreamEntries(a, b)
		ba, errBA := ChangedUpstreamEntries(b, a)
		if (errAB == nil) != (errBA == nil) {
			t.Fatalf("errors not symmetric: %v / %v", errAB, errBA)
		}
		if errAB == nil && !slices.Equal(ab, ba) {
			t.Fatalf("not symmetric: %q / %q", ab, ba)
		}
		if !slices.IsSorted(ab) || len(slices.Compact(slices.Clone(ab))) != len(ab) {
			t.Fatalf("not sorted and unique: %q", ab)
		}
	})
}
