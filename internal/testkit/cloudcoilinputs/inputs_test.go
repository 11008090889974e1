package cloudcoilinputs

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"dagger/shipyard/internal/demoworld/corpus"
)

// Every integration with real inputs, at every version it names or generates: the corpus
// README's list.
func TestAllCases(t *testing.T) {
	cc := corpus.Dir(t, "cloudcoil")
	cases, err := AllCases(cc)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cases {
		got = append(got, c.String())
	}
	want := []string{
		"cert-manager@1.16.3", "cert-manager@1.17.1", "fluxcd@2.4.0", "fluxcd@2.5.1", "istio@1.24.2",
		"keda@2.16.1", "knative-eventing@1.17.1", "knative-serving@1.17.0", "kpack@0.16.1",
		"kyverno@1.12.7", "kyverno@1.13.4", "prometheus-operator@0.79.2", "prometheus-operator@0.80.1",
		"sealed-secrets@0.28.0", "velero@1.15.2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("cases = %q\nwant %q", got, want)
	}
}

// The URLs of each case are the release sed's, and each serves a file whose name is the
// URL's, so the generator, which picks the format by the URL's file name, parses what the
// real URL would give it: a YAML stream for .yaml, a JSON document otherwise.
func TestInputsUnderTheRealURLs(t *testing.T) {
	cc := corpus.Dir(t, "cloudcoil")
	for _, tt := range []struct {
		c    Case
		urls []string
	}{
		// crd_urls' own version: as written.
		{Case{"keda", "2.16.1"}, []string{"https://github.com/kedacore/keda/releases/download/v2.16.1/keda-2.16.1-crds.yaml"}},
		// A versions line above crd_urls': the folder rewritten, the asset's name kept.
		{Case{"cert-manager", "1.17.1"}, []string{"https://github.com/cert-manager/cert-manager/releases/download/v1.17.1/cert-manager.crds.yaml"}},
		{Case{"kyverno", "1.13.4"}, []string{"https://github.com/kyverno/kyverno/releases/download/v1.13.4/install.yaml"}},
		{Case{"istio", "1.24.2"}, []string{"https://raw.githubusercontent.com/istio/istio/refs/tags/1.24.2/manifests/charts/base/files/crd-all.gen.yaml"}},
		{Case{"knative-serving", "1.17.0"}, []string{"https://github.com/knative/serving/releases/download/knative-v1.17.0/serving-crds.yaml"}},
		{Case{"kpack", "0.16.1"}, []string{"https://raw.githubusercontent.com/buildpacks-community/kpack/refs/tags/v0.16.1/api/openapi-spec/swagger.json"}},
	} {
		in, err := Inputs(cc, tt.c)
		if err != nil {
			t.Fatal(err)
		}
		var urls []string
		for u := range in {
			urls = append(urls, u)
		}
		slices.Sort(urls)
		if !slices.Equal(urls, tt.urls) {
			t.Errorf("%s: URLs %q, want %q", tt.c, urls, tt.urls)
		}
	}
	cfg, err := ReadCookiecutter(cc, "keda")
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.URLsAt("2.17.0"); !slices.Equal(got, []string{"https://github.com/kedacore/keda/releases/download/v2.17.0/keda-2.16.1-crds.yaml"}) {
		t.Errorf("keda at 2.17.0: %q; the release sed rewrites the folder only", got)
	}

	all, err := AllCases(cc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range all {
		in, err := Inputs(cc, c)
		if err != nil {
			t.Fatal(err)
		}
		for u, b := range in {
			if strings.HasSuffix(u, ".yaml") || strings.HasSuffix(u, ".yml") {
				dec := yaml.NewDecoder(bytes.NewReader(b))
				for n := 0; ; n++ {
					var doc any
					if err := dec.Decode(&doc); err != nil {
						if err.Error() != "EOF" || n == 0 {
							t.Errorf("%s: %s is not a YAML stream: %v", c, u, err)
						}
						break
					}
				}
			} else if !json.Valid(b) {
				t.Errorf("%s: %s is not JSON", c, u)
			}
		}
	}
	paths, err := Paths(cc)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := paths["/kubernetes/kubernetes/refs/tags/v1.32.1/api/openapi-spec/swagger.json"]; !ok {
		t.Error("nothing is served at kubernetes' crd_urls")
	}
}

// The kinds the generator makes: served: false versions skipped (kyverno 1.12.7 serves
// every kind at another version), exclude-unknown leaving out kinds outside crd-namespace
// (kyverno's wgpolicyk8s.io PolicyReports), Swagger definitions under the title kpack's
// updates give them, and one cert-manager asset of six CRDs.
func TestKinds(t *testing.T) {
	cc := corpus.Dir(t, "cloudcoil")
	for _, tt := range []struct {
		c           Case
		has, hasNot []string
		count       int
	}{
		{c: Case{"kyverno", "1.12.7"}, has: []string{"ClusterPolicy", "Policy", "AdmissionReport"}, hasNot: []string{"PolicyReport", "ClusterPolicyReport"}},
		{c: Case{"kyverno", "1.13.4"}, has: []string{"ClusterPolicy", "GlobalContextEntry"}, hasNot: []string{"PolicyReport", "ClusterPolicyReport"}},
		{c: Case{"kpack", "0.16.1"}, has: []string{"Image", "Build", "BuilderResource", "ClusterBuilder"}, hasNot: []string{"Builder"}},
		{c: Case{"cert-manager", "1.17.1"}, count: 6},
		{c: Case{"prometheus-operator", "0.80.1"}, count: 10},
		{c: Case{"velero", "1.15.2"}, count: 13},
	} {
		kinds, err := Kinds(cc, tt.c)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range tt.has {
			if !slices.Contains(kinds, k) {
				t.Errorf("%s: kinds %q lack %s", tt.c, kinds, k)
			}
		}
		for _, k := range tt.hasNot {
			if slices.Contains(kinds, k) {
				t.Errorf("%s: kinds %q hold %s", tt.c, kinds, k)
			}
		}
		if tt.count != 0 && len(kinds) != tt.count {
			t.Errorf("%s: %d kinds %q, want %d", tt.c, len(kinds), kinds, tt.count)
		}
	}
}

// A CRD whose every version is served: false makes no class; a version without a schema
// neither; and a document that is not an apiextensions.k8s.io/v1 CRD is not read.
func TestCRDKindsAsTheGeneratorReadsThem(t *testing.T) {
	const stream = `apiVersion: v1
kind: Namespace
metadata: {name: x}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: example.io
  names: {kind: Served}
  versions:
  - {name: v1alpha1, served: false, schema: {openAPIV3Schema: {type: object}}}
  - {name: v1, schema: {openAPIV3Schema: {type: object}}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: example.io
  names: {kind: Unserved}
  versions:
  - {name: v1, served: false, schema: {openAPIV3Schema: {type: object}}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: example.io
  names: {kind: Schemaless}
  versions:
  - {name: v1, served: true}
---
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
spec:
  group: example.io
  names: {kind: Old}
  versions:
  - {name: v1, schema: {openAPIV3Schema: {type: object}}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: other.dev
  names: {kind: Elsewhere}
  versions:
  - {name: v1, schema: {openAPIV3Schema: {type: object}}}
`
	for _, tt := range []struct {
		namespace string
		want      []string
	}{
		{"", []string{"Served", "Elsewhere"}},
		{"io.example", []string{"Served"}},
	} {
		got, err := crdKinds([]byte(stream), tt.namespace)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("crdKinds(namespace %q) = %q, %v; want %q", tt.namespace, got, err, tt.want)
		}
	}
}
