package cloudcoilinputs

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/testkit/pymodels"
)

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"apiVersion":          "api_version",
		"kind":                "kind",
		"encryptedData":       "encrypted_data",
		"observedGeneration":  "observed_generation",
		"caBundle":            "ca_bundle",
		"dnsNames":            "dns_names",
		"IPAddresses":         "ip_addresses",
		"privateKeySecretRef": "private_key_secret_ref",
		"x509":                "x509",
		"already_snake":       "already_snake",
	} {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// Every served version with a schema is a resource class; the fields are the schema's
// properties, apiVersion, kind and metadata added (none without properties), required as
// the schema says but for apiVersion, kind and metadata.
func TestCRDResources(t *testing.T) {
	const stream = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: example.io
  names: {kind: Widget}
  versions:
  - {name: v1alpha1, served: false, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object}}}}}
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        required: [spec, metadata, kind]
        properties: {metadata: {type: object}, spec: {type: object}, kind: {type: string}, statusDetail: {type: object}}
  - {name: v2, schema: {openAPIV3Schema: {type: object}}}
  - {name: v3, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object}}}}}
`
	got, err := crdResources([]byte(stream), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []Resource{
		{APIVersion: "example.io/v1", Kind: "Widget", Fields: []ResourceField{
			{Name: "api_version", Alias: "apiVersion"}, {Name: "kind"}, {Name: "metadata"},
			{Name: "spec", Required: true}, {Name: "status_detail", Alias: "statusDetail"},
		}},
		{APIVersion: "example.io/v2", Kind: "Widget"},
		{APIVersion: "example.io/v3", Kind: "Widget", Fields: []ResourceField{
			{Name: "api_version", Alias: "apiVersion"}, {Name: "kind"}, {Name: "metadata"}, {Name: "spec"},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("crdResources =\n%+v\nwant\n%+v", got, want)
	}
}

// sealedSecretModule is what the real generator makes of sealed-secrets 0.28.0's resource
// (its v1alpha1.py, builders and docstrings left out).
const sealedSecretModule = `class SealedSecret(Resource):
    api_version: Annotated[Optional[Literal["bitnami.com/v1alpha1"]], Field(alias="apiVersion")] = (
        "bitnami.com/v1alpha1"
    )
    kind: Optional[Literal["SealedSecret"]] = "SealedSecret"
    metadata: Optional[apimachinery.ObjectMeta] = None
    spec: SealedSecretSpec
    status: Optional[SealedSecretStatus] = None
`

// The resources derived from the real CRD match the generated class; each way the class
// can differ is named.
func TestCheckResources(t *testing.T) {
	derived, err := Resources(corpus.Dir(t, "cloudcoil"), Case{Name: "sealed-secrets", Version: "0.28.0"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, change, to string
		want             string
	}{
		{"as generated", "", "", ""},
		{"spec optional", "spec: SealedSecretSpec", "spec: Optional[SealedSecretSpec] = None", "v1alpha1.py SealedSecret.spec: alias \"\", required false; the CRD gives alias \"\", required true"},
		{"field missing", "    status: Optional[SealedSecretStatus] = None\n", "", "v1alpha1.py SealedSecret: no field status (from the CRD's status)"},
		{"field added", "    spec:", "    extra: int = 1\n    spec:", "v1alpha1.py SealedSecret: field extra is in no property of the CRD"},
		{"alias lost", `Field(alias="apiVersion")`, `Field()`, "v1alpha1.py SealedSecret.api_version: alias \"\""},
		{"another kind", `Literal["SealedSecret"]`, `Literal["Sealed"]`, "no Resource class for bitnami.com/v1alpha1 SealedSecret"},
		{"not a Resource", "(Resource)", "(BaseModel)", "no Resource class for bitnami.com/v1alpha1 SealedSecret"},
		{"a Resource without apiVersion or kind", "class SealedSecret(Resource):", "class Other(Resource):\n    x: int\n\n\nclass SealedSecret(Resource):", "v1alpha1.py Other: a Resource class for  , which no served CRD version names"},
		// The generator's name clash (cert-manager's acme Challenge): the resource is
		// <Kind>Model, and the nested type of the kind's name has the Resource base.
		{"the generator's name clash", "class SealedSecret(Resource):", "class SealedSecret(Resource):\n    token: str\n\n\nclass SealedSecretModel(Resource):", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := sealedSecretModule
			if tc.change != "" {
				src = strings.Replace(src, tc.change, tc.to, 1)
				if src == sealedSecretModule {
					t.Fatalf("the change %q changed nothing", tc.change)
				}
			}
			m, err := pymodels.ParseModule("v1alpha1.py", src)
			if err != nil {
				t.Fatal(err)
			}
			problems := CheckResources(derived, pymodels.Shape{Modules: []pymodels.Module{m}})
			if tc.want == "" {
				if len(problems) > 0 {
					t.Errorf("problems: %q", problems)
				}
				return
			}
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) }) {
				t.Errorf("problems %q lack %q", problems, tc.want)
			}
		})
	}
}
