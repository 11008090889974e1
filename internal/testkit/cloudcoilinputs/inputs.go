// Package cloudcoilinputs serves the real upstream inputs of Cloudcoil's integrations, from
// the corpus (../shared/corpus/cloudcoil/crds), under the paths of the real URLs each
// integration's crd_urls names, at each version it generates; and says which classes the
// real generator (cloudcoil-model-codegen, tree/cloudcoil/codegen/generator.py) makes of
// them. The real-engine suite runs the real generator against these files.
package cloudcoilinputs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"gopkg.in/yaml.v3"
)

// Case is one integration at one upstream version: the version crd_urls names or a line of
// its versions.
type Case struct{ Name, Version string }

func (c Case) String() string { return c.Name + "@" + c.Version }

// Cookiecutter is what models/<name>/cookiecutter.yaml in the real repository says about an
// integration's inputs.
type Cookiecutter struct {
	URLs         []string // crd_urls
	Versions     []string // versions' lines
	Sed          string   // version_replacement_sed
	CRDNamespace string   // crd_namespace
	Dependencies []string // dependencies: packages added to the requirements
}

var (
	crdURLsLine      = regexp.MustCompile(`(?m)^\s*crd_urls:\s*(\S+)\s*$`)
	versionsLine     = regexp.MustCompile(`(?m)^\s*versions:\s*(.*)$`)
	sedLine          = regexp.MustCompile(`(?m)^\s*version_replacement_sed:\s*(\S+)\s*$`)
	crdNamespaceLine = regexp.MustCompile(`(?m)^\s*crd_namespace:\s*'?([^'\s]*)'?\s*$`)
	dependenciesLine = regexp.MustCompile(`(?m)^\s*dependencies:\s*"?([^"\n]*)"?\s*$`)
	quoted           = regexp.MustCompile(`'([^']+)'`)
)

// ReadCookiecutter reads an integration's cookiecutter.yaml in the corpus's real repository
// (cc is the corpus's cloudcoil folder).
func ReadCookiecutter(cc, name string) (Cookiecutter, error) {
	where := filepath.Join("models", name, "cookiecutter.yaml")
	b, err := os.ReadFile(filepath.Join(cc, "tree", where))
	if err != nil {
		return Cookiecutter{}, err
	}
	urls, versions, sed := crdURLsLine.FindSubmatch(b), versionsLine.FindSubmatch(b), sedLine.FindSubmatch(b)
	if urls == nil || versions == nil || sed == nil {
		return Cookiecutter{}, fmt.Errorf("%s lacks crd_urls, versions or version_replacement_sed", where)
	}
	c := Cookiecutter{URLs: strings.Split(string(urls[1]), ","), Sed: string(sed[1])}
	for _, m := range quoted.FindAllSubmatch(versions[1], -1) {
		c.Versions = append(c.Versions, string(m[1]))
	}
	if m := crdNamespaceLine.FindSubmatch(b); m != nil {
		c.CRDNamespace = string(m[1])
	}
	if m := dependenciesLine.FindSubmatch(b); m != nil {
		for _, d := range strings.Split(string(m[1]), ",") {
			c.Dependencies = append(c.Dependencies, strings.TrimSpace(d))
		}
	}
	return c, nil
}

// URLVersion is the version crd_urls names: what follows the first version_replacement_sed.
func (c Cookiecutter) URLVersion() string {
	re := regexp.MustCompile(regexp.QuoteMeta(c.Sed) + `([0-9]+\.[0-9]+\.[0-9]+)/`)
	for _, u := range c.URLs {
		if m := re.FindStringSubmatch(u); m != nil {
			return m[1]
		}
	}
	return ""
}

// URLsAt are the input URLs of version v as the template's update_releases.yml makes them:
// `sed "s|<sed>[0-9]\+\.[0-9]\+\.[0-9]\+/|<sed>v/|"` on pyproject.toml, where each URL is a
// line of its own, so the first match in each URL. The file name is left as it is: keda's
// …/download/v<v>/keda-2.16.1-crds.yaml keeps crd_urls' version.
func (c Cookiecutter) URLsAt(v string) []string {
	re := regexp.MustCompile(regexp.QuoteMeta(c.Sed) + `[0-9]+\.[0-9]+\.[0-9]+/`)
	out := make([]string, len(c.URLs))
	for i, u := range c.URLs {
		if loc := re.FindStringIndex(u); loc != nil {
			u = u[:loc[0]] + c.Sed + v + "/" + u[loc[1]:]
		}
		out[i] = u
	}
	return out
}

// AllCases are every integration folder of the corpus's crds/ (kubernetes has none: its
// swagger.json is not in the corpus), at the version its crd_urls names and at each line of
// its versions.
func AllCases(cc string) ([]Case, error) {
	entries, err := os.ReadDir(filepath.Join(cc, "crds"))
	if err != nil {
		return nil, err
	}
	var out []Case
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		cfg, err := ReadCookiecutter(cc, e.Name())
		if err != nil {
			return nil, err
		}
		versions := []string{cfg.URLVersion()}
		for _, v := range cfg.Versions {
			if !slices.Contains(versions, v) {
				versions = append(versions, v)
			}
		}
		for _, v := range versions {
			out = append(out, Case{e.Name(), v})
		}
	}
	return out, nil
}

// URLPath is a real input URL's path on the server: the host left out.
func URLPath(u string) string {
	return strings.TrimPrefix(strings.TrimPrefix(u, "https://raw.githubusercontent.com"), "https://github.com")
}

// Inputs are the files a case's real URLs serve, by URL: crds/<name>/<version>/ (crds/<name>/
// for the versions of the first corpus) and the URL's file name. cert-manager's release asset
// cert-manager.crds.yaml is its deploy/crds/*.yaml concatenated, as its release builds it.
func Inputs(cc string, c Case) (map[string][]byte, error) {
	dir := filepath.Join(cc, "crds", c.Name, c.Version)
	if _, err := os.Stat(dir); err != nil {
		dir = filepath.Join(cc, "crds", c.Name)
	}
	cfg, err := ReadCookiecutter(cc, c.Name)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, u := range cfg.URLsAt(c.Version) {
		if b, err := os.ReadFile(filepath.Join(dir, path.Base(u))); err == nil {
			files[u] = b
			continue
		}
		parts, _ := filepath.Glob(filepath.Join(dir, "crd-*.yaml"))
		if c.Name != "cert-manager" || len(parts) == 0 {
			return nil, fmt.Errorf("%s: the corpus has no input for %s in %s", c, u, dir)
		}
		var all bytes.Buffer
		for _, f := range parts {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			all.WriteString("---\n")
			all.Write(b)
		}
		files[u] = all.Bytes()
	}
	return files, nil
}

// Paths is what the server serves, by URL path: every case's inputs, and at the kubernetes
// integration's crd_urls KubernetesFromKpack.
func Paths(cc string) (map[string][]byte, error) {
	cases, err := AllCases(cc)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, c := range cases {
		in, err := Inputs(cc, c)
		if err != nil {
			return nil, err
		}
		for u, b := range in {
			files[URLPath(u)] = b
		}
	}
	k8s, err := KubernetesFromKpack(cc)
	if err != nil {
		return nil, err
	}
	cfg, err := ReadCookiecutter(cc, "kubernetes")
	if err != nil {
		return nil, err
	}
	for _, u := range cfg.URLs {
		files[URLPath(u)] = k8s
	}
	return files, nil
}

// KubernetesModels is the package kpack's models depend on (models/kpack/cookiecutter.yaml's
// dependencies), which the template's hook locks and the checks import. Kubernetes'
// swagger.json is not in the corpus, so the real-engine suite makes it with the real
// generator from the kubernetes integration (its own cookiecutter.yaml, template and
// transformations, through gen-repo) and KubernetesFromKpack: the types of the Kubernetes
// release kpack builds against, every one kpack's definitions refer to, and no others.
const KubernetesModels = "cloudcoil.models.kubernetes"

// KubernetesFromKpack is kpack 0.16.1's io.k8s definitions, in a Swagger 2.0 document as
// Kubernetes' own swagger.json is.
func KubernetesFromKpack(cc string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(cc, "crds", "kpack", "0.16.1", "swagger.json"))
	if err != nil {
		return nil, err
	}
	var doc struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("kpack's swagger.json: %w", err)
	}
	k8s := map[string]json.RawMessage{}
	for name, d := range doc.Definitions {
		if strings.HasPrefix(name, "io.k8s.") {
			k8s[name] = d
		}
	}
	return json.Marshal(map[string]any{"swagger": "2.0", "info": map[string]string{"title": "Kubernetes", "version": "v1.32.1"}, "paths": map[string]any{}, "definitions": k8s})
}

// Kinds are the classes the real generator makes of a case's resources, read from its
// inputs as process_input() in generator.py reads them: the URL's file name picks the format
// (.yaml/.yml a YAML stream, anything else JSON); of YAML, the apiextensions.k8s.io/v1
// CustomResourceDefinitions with a served version (served: false skipped) that has a schema;
// of a Swagger document, the definitions outside io.k8s with a <Kind>List beside them, under
// the title the integration's updates give them (kpack's Builder is BuilderResource). With
// exclude-unknown (kyverno), only the kinds under crd-namespace are generated
// (ModelConfig._add_namespace): kyverno 1.13.4's install.yaml also holds wgpolicyk8s.io's
// PolicyReport CRDs, which its models leave out.
func Kinds(cc string, c Case) ([]string, error) {
	overlay, err := readOverlay(cc, c.Name)
	if err != nil {
		return nil, err
	}
	namespace, err := kindNamespace(cc, c.Name)
	if err != nil {
		return nil, err
	}
	in, err := Inputs(cc, c)
	if err != nil {
		return nil, err
	}
	var kinds []string
	for u, b := range in {
		var k []string
		if strings.HasSuffix(u, ".yaml") || strings.HasSuffix(u, ".yml") {
			k, err = crdKinds(b, namespace)
		} else {
			k, err = swaggerKinds(b, overlay)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", u, err)
		}
		kinds = append(kinds, k...)
	}
	if len(kinds) == 0 {
		return nil, fmt.Errorf("no resource kind in the inputs of %s", c)
	}
	slices.Sort(kinds)
	return slices.Compact(kinds), nil
}

// codegenOverlay is what an integration's models/<name>/pyproject.toml adds to its
// [[tool.cloudcoil.codegen.models]] entry (the template's hook appends it there).
type codegenOverlay struct {
	ExcludeUnknown bool `toml:"exclude-unknown"`
	Updates        []struct {
		Match    string `toml:"match"`
		JSONPath string `toml:"jsonpath"`
		Value    string `toml:"value"`
	} `toml:"updates"`
}

func readOverlay(cc, name string) (codegenOverlay, error) {
	var o codegenOverlay
	b, err := os.ReadFile(filepath.Join(cc, "tree", "models", name, "pyproject.toml"))
	if errors.Is(err, os.ErrNotExist) {
		return o, nil
	}
	if err != nil {
		return o, err
	}
	if err := toml.Unmarshal(b, &o); err != nil {
		return o, fmt.Errorf("models/%s/pyproject.toml: %w", name, err)
	}
	return o, nil
}

// crdKinds are the kinds of the CRDs in a YAML stream that have a served version with a
// schema; when namespace is set, only those whose reversed group lies under it.
func crdKinds(b []byte, namespace string) ([]string, error) {
	docs, err := readCRDs(b, namespace)
	if err != nil {
		return nil, err
	}
	var kinds []string
	for _, doc := range docs {
		if slices.ContainsFunc(doc.Spec.Versions, crdVersion.generated) {
			kinds = append(kinds, doc.Spec.Names.Kind)
		}
	}
	return kinds, nil
}

// readCRDs are the apiextensions.k8s.io/v1 CustomResourceDefinitions of a YAML stream whose
// reversed group lies under namespace ("" takes all).
func readCRDs(b []byte, namespace string) ([]crdDoc, error) {
	var out []crdDoc
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var doc crdDoc
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		if doc.APIVersion == "apiextensions.k8s.io/v1" && doc.Kind == "CustomResourceDefinition" && doc.inNamespace(namespace) {
			out = append(out, doc)
		}
	}
}

// pythonGroup is a Python replacement's group reference, \g<N>.
var pythonGroup = regexp.MustCompile(`\\g<(\d+)>`)

func swaggerKinds(b []byte, overlay codegenOverlay) ([]string, error) {
	var doc struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	var kinds []string
	for def := range doc.Definitions {
		if strings.HasPrefix(def, "io.k8s.") {
			continue
		}
		if _, ok := doc.Definitions[def+"List"]; !ok {
			continue
		}
		title := def
		for _, up := range overlay.Updates {
			if up.JSONPath != "title" {
				continue
			}
			re, err := regexp.Compile(up.Match)
			if err != nil {
				return nil, err
			}
			if re.MatchString(def) {
				title = re.ReplaceAllString(def, pythonGroup.ReplaceAllString(up.Value, `$${$1}`))
			}
		}
		kinds = append(kinds, title[strings.LastIndex(title, ".")+1:])
	}
	return kinds, nil
}

// Resource is a resource class the real generator makes of one served version of a CRD,
// derived from the CRD as generator.py's CRD reading and GVK processing derive it: its
// apiVersion (group/version) and kind, and its top-level fields: the schema's properties
// with apiVersion, kind and metadata added when absent (none when the schema has no
// properties), named by datamodel-code-generator's
// --snake-case-field (aliased to the property when that differs), required as the schema
// says except apiVersion and kind (which get their constant as default) and metadata.
type Resource struct {
	APIVersion, Kind string
	Fields           []ResourceField
}

// ResourceField is a top-level field of a resource class.
type ResourceField struct {
	Name, Alias string
	Required    bool
}

// Resources are the resource classes of a case whose inputs are CRDs (YAML), sorted by
// apiVersion and kind; a Swagger input's are not derived (its resources come from the
// document's own definitions and the integration's updates), so a case of one has none.
func Resources(cc string, c Case) ([]Resource, error) {
	namespace, err := kindNamespace(cc, c.Name)
	if err != nil {
		return nil, err
	}
	in, err := Inputs(cc, c)
	if err != nil {
		return nil, err
	}
	cfg, err := ReadCookiecutter(cc, c.Name)
	if err != nil {
		return nil, err
	}
	byName := map[string]Resource{}
	for _, u := range cfg.URLsAt(c.Version) { // crd_urls' order, the generator's
		if !strings.HasSuffix(u, ".yaml") && !strings.HasSuffix(u, ".yml") {
			continue
		}
		rs, err := crdResources(in[u], namespace)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", u, err)
		}
		// A later CRD of the same name replaces an earlier one, as a later schema does in
		// the generator's components.
		for _, r := range rs {
			byName[r.APIVersion+" "+r.Kind] = r
		}
	}
	out := make([]Resource, 0, len(byName))
	for _, k := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[k])
	}
	return out, nil
}

// kindNamespace is the crd_namespace an exclude-unknown integration generates under, or "".
func kindNamespace(cc, name string) (string, error) {
	overlay, err := readOverlay(cc, name)
	if err != nil || !overlay.ExcludeUnknown {
		return "", err
	}
	cfg, err := ReadCookiecutter(cc, name)
	if err != nil {
		return "", err
	}
	if cfg.CRDNamespace == "" {
		return "", fmt.Errorf("models/%s sets exclude-unknown without a crd_namespace", name)
	}
	return cfg.CRDNamespace, nil
}

type crdDoc struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		Group string `yaml:"group"`
		Names struct {
			Kind string `yaml:"kind"`
		} `yaml:"names"`
		Versions []crdVersion `yaml:"versions"`
	} `yaml:"spec"`
}

type crdVersion struct {
	Name   string `yaml:"name"`
	Served *bool  `yaml:"served"`
	Schema struct {
		OpenAPIV3Schema map[string]any `yaml:"openAPIV3Schema"`
	} `yaml:"schema"`
}

// generated says whether the generator makes a class of the version: served (the
// default) and with a schema.
func (v crdVersion) generated() bool {
	return (v.Served == nil || *v.Served) && len(v.Schema.OpenAPIV3Schema) > 0
}

// inNamespace says whether a CRD's group, reversed, lies under namespace ("" takes all).
func (d crdDoc) inNamespace(namespace string) bool {
	if namespace == "" {
		return true
	}
	parts := strings.Split(d.Spec.Group, ".")
	slices.Reverse(parts)
	return strings.HasPrefix(strings.Join(parts, ".")+".", namespace+".")
}

func crdResources(b []byte, namespace string) ([]Resource, error) {
	docs, err := readCRDs(b, namespace)
	if err != nil {
		return nil, err
	}
	var out []Resource
	for _, doc := range docs {
		for _, v := range doc.Spec.Versions {
			if !v.generated() {
				continue
			}
			apiVersion := v.Name
			if doc.Spec.Group != "" {
				apiVersion = doc.Spec.Group + "/" + v.Name
			}
			out = append(out, Resource{APIVersion: apiVersion, Kind: doc.Spec.Names.Kind, Fields: topLevelFields(v.Schema.OpenAPIV3Schema)})
		}
	}
	return out, nil
}

func topLevelFields(schema map[string]any) []ResourceField {
	props, _ := schema["properties"].(map[string]any)
	required := map[string]bool{}
	if list, ok := schema["required"].([]any); ok {
		for _, r := range list {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	if props == nil {
		return nil
	}
	// generator.py adds apiVersion and kind when absent and always sets metadata (to
	// ObjectMeta).
	names := []string{"apiVersion", "kind", "metadata"}
	for p := range props {
		names = append(names, p)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	fields := make([]ResourceField, 0, len(names))
	for _, p := range names {
		f := ResourceField{Name: SnakeCase(p), Required: required[p] && p != "apiVersion" && p != "kind" && p != "metadata"}
		if f.Name != p {
			f.Alias = p
		}
		fields = append(fields, f)
	}
	return fields
}

var (
	underScore1 = regexp.MustCompile(`([^_])([A-Z][a-z]+)`)
	underScore2 = regexp.MustCompile(`([a-z0-9])([A-Z])`)
)

// SnakeCase is datamodel-code-generator's camel_to_snake (reference.py), which
// --snake-case-field applies to every field name.
func SnakeCase(s string) string {
	return strings.ToLower(underScore2.ReplaceAllString(underScore1.ReplaceAllString(s, "${1}_${2}"), "${1}_${2}"))
}
