package upstreams_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/upstreams/upstreamstest"
)

func fixtureFile(t *testing.T) (*upstreams.File, []byte) {
	t.Helper()
	b := upstreamstest.ReadFile(t, upstreams.FilePath)
	f, err := upstreams.Parse(b)
	if err != nil {
		t.Fatalf("Parse(fixture): %v", err)
	}
	return f, b
}

func TestParseFixture(t *testing.T) {
	f, b := fixtureFile(t)
	if got := f.Names(); strings.Join(got, ",") != strings.Join(upstreamstest.Names(), ",") {
		t.Errorf("Names() = %v, want %v", got, upstreamstest.Names())
	}
	if f.Cloudcoil.Package != "cloudcoil" || f.Cloudcoil.Version != "0.5.3" || f.Cloudcoil.Minor != "0.5" {
		t.Errorf("cloudcoil = %+v", f.Cloudcoil)
	}
	if istio := f.Integrations["istio"]; istio.TagPrefix == nil || *istio.TagPrefix != "" {
		t.Errorf("istio tag_prefix must be the empty string, set")
	}
	// The file is machine-formatted: writing it back is the identity.
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, b) {
		t.Errorf("Marshal(Parse(fixture)) differs from the fixture:\n%s", out)
	}
	for _, name := range f.Names() {
		if err := upstreams.CheckCookiecutter(upstreamstest.ReadFile(t, upstreams.CookiecutterPath(name)), *f.Integrations[name]); err != nil {
			t.Errorf("fixture out of step: %v", err)
		}
	}
}

func TestSchemaURLsFor(t *testing.T) {
	f, _ := fixtureFile(t)
	for _, tt := range []struct {
		integration, version string
		want                 []string
	}{
		{"istio", "1.23.4", []string{"https://raw.githubusercontent.com/istio/istio/refs/tags/1.23.4/manifests/charts/base/crds/crd-all.gen.yaml"}},
		{"istio", "1.24.0", []string{"https://raw.githubusercontent.com/istio/istio/refs/tags/1.24.0/manifests/charts/base/files/crd-all.gen.yaml"}},
		{"keda", "2.17.0", []string{"https://github.com/kedacore/keda/releases/download/v2.17.0/keda-2.17.0-crds.yaml"}},
		{"velero", "1.11.1", []string{
			"https://raw.githubusercontent.com/vmware-tanzu/velero/refs/tags/v1.11.1/config/crd/v1/bases/velero.io_backups.yaml",
			"https://raw.githubusercontent.com/vmware-tanzu/velero/refs/tags/v1.11.1/config/crd/v1/bases/velero.io_restores.yaml",
			"https://raw.githubusercontent.com/vmware-tanzu/velero/refs/tags/v1.11.1/config/crd/v1/bases/velero.io_schedules.yaml",
		}},
	} {
		v, err := upstreams.ParseVersion(tt.version)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Integrations[tt.integration].SchemaURLsFor(v)
		if err != nil || strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%s SchemaURLsFor(%s) = %v, %v; want %v", tt.integration, tt.version, got, err, tt.want)
		}
	}
}

// validFile is a minimal valid file the rejection cases below break one field at a time.
const validFile = `{
  "cloudcoil": {"package": "cloudcoil", "version": "0.5.3", "minor": "0.5"},
  "integrations": {
    "istio": {
      "repository": "istio/istio",
      "tag_prefix": "",
      "versions": ["1.24.2"],
      "schema_urls": [{"url": "https://example.com/{version}/crds.yaml"}],
      "policy": "newest-minor"
    },
    "kubernetes": {
      "repository": "kubernetes/kubernetes",
      "tag_prefix": "v",
      "versions": ["1.31.5", "1.32.1"],
      "schema_urls": [{"url": "https://example.com/v{version}/swagger.json"}],
      "policy": "maintained-lines",
      "maintained_lines": 2
    }
  }
}`

func TestParseRejects(t *testing.T) {
	if _, err := upstreams.Parse([]byte(validFile)); err != nil {
		t.Fatalf("the base case must be valid: %v", err)
	}
	tests := []struct {
		name, old, new string
		want           string // every message starts with the file and names the path
	}{
		{"unknown top-level field", `"cloudcoil": {`, `"cloudcoll": {"x": 1}, "cloudcoil": {`, "models/upstreams.json: cloudcoll: unknown field"},
		{"unknown integration field, the other kept", `"tag_prefix": "",`, `"tag_prefix": "", "tag_prefx": "v",`, "models/upstreams.json: integrations.istio: tag_prefx: unknown field"},
		{"unknown schema url field", `"https://example.com/{version}/crds.yaml"}`, `"https://example.com/{version}/crds.yaml", "sinse": "1.2"}`, "integrations.istio: schema_urls[0]: sinse: unknown field"},
		{"unknown cloudcoil field", `"minor": "0.5"`, `"minor": "0.5", "range": ">=0.5"`, "cloudcoil: range: unknown field"},
		{"duplicate integration", `"kubernetes": {`, `"istio": {}, "kubernetes": {`, "integrations: istio: duplicate field"},
		{"missing cloudcoil", `"cloudcoil": {"package": "cloudcoil", "version": "0.5.3", "minor": "0.5"},`, ``, "models/upstreams.json: cloudcoil: missing"},
		{"wrong type", `"versions": ["1.24.2"]`, `"versions": [1.24]`, "integrations.istio: json: cannot unmarshal"},
		{"trailing data", `}
}`, `}
} {}`, "trailing data"},
		{"prefix and pattern", `"tag_prefix": "",`, `"tag_prefix": "", "tag_pattern": "(?P<version>.*)",`, "integrations.istio: set exactly one of tag_prefix and tag_pattern"},
		{"neither prefix nor pattern", `"tag_prefix": "",`, ``, "integrations.istio: set exactly one of tag_prefix and tag_pattern"},
		{"pattern without group", `"tag_prefix": "",`, `"tag_pattern": "v[0-9.]+",`, "models/upstreams.json: integrations.istio.tag_pattern: "},
		{"pattern with another group", `"tag_prefix": "",`, `"tag_pattern": "(?P<p>v)(?P<version>.+)",`, "integrations.istio.tag_pattern: "},
		{"pattern does not compile", `"tag_prefix": "",`, `"tag_pattern": "(?P<version>",`, "integrations.istio.tag_pattern: "},
		{"prefix ending in a digit", `"tag_prefix": "v",`, `"tag_prefix": "v1",`, "integrations.kubernetes.tag_prefix: "},
		{"bad repository", `"istio/istio"`, `"istio"`, "integrations.istio.repository: "},
		{"bad name", `"istio": {`, `"Istio": {`, "integrations.Istio: name must be"},
		{"empty matrix", `"versions": ["1.24.2"]`, `"versions": []`, "integrations.istio.versions: must list"},
		{"bad matrix version", `"versions": ["1.24.2"]`, `"versions": ["v1.24.2"]`, "integrations.istio.versions[0]: "},
		{"two versions of a line", `"versions": ["1.24.2"]`, `"versions": ["1.24.2", "1.24.3"]`, "integrations.istio.versions[1]: 1.24.3 repeats the minor line 1.24"},
		{"unsorted matrix", `"versions": ["1.31.5", "1.32.1"]`, `"versions": ["1.32.1", "1.31.5"]`, "integrations.kubernetes.versions[1]: 1.31.5 comes after 1.32.1"},
		{"unknown policy", `"policy": "maintained-lines"`, `"policy": "patch"`, "integrations.kubernetes.policy: "},
		{"no policy", `,
      "policy": "newest-minor"`, ``, "integrations.istio.policy: missing: set \"newest-minor\""},
		{"more lines than maintained", `"maintained_lines": 2`, `"maintained_lines": 1`, "integrations.kubernetes.versions: 2 lines, more than maintained_lines 1"},
		{"maintained lines missing", `,
      "maintained_lines": 2`, ``, "integrations.kubernetes.maintained_lines: policy \"maintained-lines\" needs how many lines"},
		{"maintained lines without the policy", `"tag_prefix": "",`, `"tag_prefix": "", "maintained_lines": 2,`, "integrations.istio.maintained_lines: only allowed"},
		{"newest-minor with two lines", `"versions": ["1.24.2"]`, `"versions": ["1.23.1", "1.24.2"]`, "integrations.istio.versions: policy \"newest-minor\" tracks one line"},
		{"no schema urls", `"schema_urls": [{"url": "https://example.com/{version}/crds.yaml"}]`, `"schema_urls": []`, "integrations.istio.schema_urls: must list"},
		{"url without placeholder", `"https://example.com/{version}/crds.yaml"`, `"https://example.com/crds.yaml"`, "integrations.istio.schema_urls[0].url: "},
		{"url with unknown placeholder", `"https://example.com/{version}/crds.yaml"`, `"https://example.com/{version}/{tag}.yaml"`, "integrations.istio.schema_urls[0].url: unknown placeholder {tag}"},
		{"plain http url", `"https://example.com/{version}/crds.yaml"`, `"http://example.com/{version}/crds.yaml"`, "integrations.istio.schema_urls[0].url: "},
		{"bad since", `"https://example.com/{version}/crds.yaml"}`, `"https://example.com/{version}/crds.yaml", "since": "one"}`, "integrations.istio.schema_urls[0].since: "},
		{"since not below until", `"https://example.com/{version}/crds.yaml"}`, `"https://example.com/{version}/crds.yaml", "since": "1.2", "until": "1.2.0"}`, "integrations.istio.schema_urls[0]: since 1.2 must be lower than until 1.2.0"},
		{"no url for a matrix version", `"https://example.com/{version}/crds.yaml"}`, `"https://example.com/{version}/crds.yaml", "since": "1.25"}`, "integrations.istio.versions[0]: no schema_urls entry applies to 1.24.2"},
		{"bad cloudcoil package", `"package": "cloudcoil"`, `"package": "-cloudcoil"`, "models/upstreams.json: cloudcoil.package: "},
		{"cloudcoil pre-release", `"version": "0.5.3"`, `"version": "0.5.4rc1"`, "cloudcoil.version: "},
		{"cloudcoil outside its minor", `"version": "0.5.3"`, `"version": "0.6.0"`, "cloudcoil.version: 0.6.0 is outside the compatible minor 0.5"},
		{"cloudcoil bad minor", `"minor": "0.5"`, `"minor": ">=0.5,<0.6"`, "cloudcoil.minor: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Replace(validFile, tt.old, tt.new, 1)
			if in == validFile {
				t.Fatalf("the case does not change the file: %q not found", tt.old)
			}
			f, err := upstreams.Parse([]byte(in))
			if err == nil {
				// A broken integration is set aside, named with its file; the others stay.
				if len(f.Problems) != 1 {
					t.Fatalf("Parse accepted the file")
				}
				p := f.Problems[0]
				if p.File != upstreams.FilePath || f.Integrations[p.Integration] != nil || len(f.Integrations) != 1 {
					t.Errorf("problem %+v: want the one integration set aside, the other kept", p)
				}
				if strings.Contains(p.String(), p.File+": "+p.File) {
					t.Errorf("problem %q names its file twice", p)
				}
				err = errors.New(p.File + ": " + p.Problem)
				// Written back, the entry is still there and still set aside: nothing repairs
				// or drops it behind the maintainer's back.
				out, merr := f.Marshal()
				again, perr := upstreams.Parse(out)
				if merr != nil || perr != nil || len(again.Problems) != 1 || again.Problems[0].Problem != p.Problem {
					t.Errorf("written back: %v %v %+v\n%s", merr, perr, again, out)
				}
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
	for _, bad := range []string{``, `[]`, `null`, `{`, `{"cloudcoil": 1}`} {
		if _, err := upstreams.Parse([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), upstreams.FilePath+": ") {
			t.Errorf("Parse(%q) error = %v, want one naming the file", bad, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(validFile))
	f.Add(upstreamstest.ReadFile(f, upstreams.FilePath))
	f.Add([]byte(`{"cloudcoil":{},"integrations":{"a":null}}`))
	f.Add([]byte(`{"cloudcoil":{"package":"x","version":"1.0","minor":"1.0"},"integrations":{"a":{"repository":"o/r","tag_pattern":"(?P<version>.*)","versions":["1.0.0"],"schema_urls":[{"url":"https://x/{version}","until":"2.0"}]}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := upstreams.Parse(b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), upstreams.FilePath+": ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// A valid file writes back in a stable format that parses to the same file.
		out, err := file.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		again, err := upstreams.Parse(out)
		if err != nil {
			t.Fatalf("re-parse of the written file: %v\n%s", err, out)
		}
		out2, err := again.Marshal()
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("formatting is not stable:\n%s\n---\n%s", out, out2)
		}
	})
}
