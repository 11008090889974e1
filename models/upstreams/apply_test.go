package upstreams_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/upstreams/upstreamstest"
)

// changedLines compares two texts line by line (same line count expected) and returns the
// indexes of the lines that differ.
func changedLines(t *testing.T, before, after []byte) []int {
	t.Helper()
	a, b := strings.Split(string(before), "\n"), strings.Split(string(after), "\n")
	if len(a) != len(b) {
		t.Fatalf("line count changed: %d → %d\n%s", len(a), len(b), after)
	}
	var out []int
	for i := range a {
		if a[i] != b[i] {
			out = append(out, i)
		}
	}
	return out
}

func TestApplyToUpstreams(t *testing.T) {
	b := upstreamstest.ReadFile(t, upstreams.FilePath)
	_, plan := fixturePlan(t)
	after, err := upstreams.ApplyToUpstreams(b, plan)
	if err != nil {
		t.Fatal(err)
	}
	// Exactly one line per applied change differs: the matrix entry or cloudcoil.version.
	lines := strings.Split(string(after), "\n")
	changed := changedLines(t, b, after)
	if len(changed) != len(plan.Applied()) {
		t.Errorf("%d lines changed for %d applied changes", len(changed), len(plan.Applied()))
	}
	for i, c := range plan.Applied() {
		if i >= len(changed) {
			break
		}
		if !strings.Contains(lines[changed[i]], `"`+c.To+`"`) {
			t.Errorf("changed line %q does not hold %s", lines[changed[i]], c.To)
		}
	}
	parsed, err := upstreams.Parse(after)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(parsed.Integrations["kubernetes"].Versions, ","); got != "1.29.14,1.30.10,1.31.6,1.32.2" {
		t.Errorf("kubernetes matrix = %s", got)
	}
	if parsed.Cloudcoil.Version != "0.5.4" {
		t.Errorf("cloudcoil.version = %s", parsed.Cloudcoil.Version)
	}
	// Proposals are not applied.
	if got := parsed.Integrations["keda"].Versions; len(got) != 1 || got[0] != "2.16.1" {
		t.Errorf("keda matrix = %v, want the proposal left out", got)
	}
	// Re-planning the updated file with the same releases finds only the proposals.
	for _, c := range upstreams.Plan(parsed, discoveredFixture(t, parsed), upstreams.PyPIInfo{Name: "cloudcoil", Releases: []upstreams.PyPIRelease{{Version: "0.5.4"}}}).Changes {
		if c.Applied {
			t.Errorf("after applying, %s %s → %s is still pending", c.Integration, c.From, c.To)
		}
	}
	// Nothing to apply: the bytes come back untouched.
	if same, err := upstreams.ApplyToUpstreams(b, upstreams.Updates{}); err != nil || !bytes.Equal(same, b) {
		t.Errorf("empty plan changed the file: %v", err)
	}
	// A plan made for another state of the file is refused.
	if _, err := upstreams.ApplyToUpstreams(after, plan); err == nil || !strings.HasPrefix(err.Error(), "models/upstreams.json: ") {
		t.Errorf("applying a plan twice: %v, want an error naming the file and field", err)
	}
}

func discoveredFixture(t *testing.T, f *upstreams.File) map[string][]upstreams.Version {
	t.Helper()
	out := map[string][]upstreams.Version{}
	releases := upstreamstest.Releases()
	for _, name := range f.Names() {
		in := f.Integrations[name]
		out[name] = upstreams.Candidates(*in, releases[in.Repository])
	}
	return out
}

func TestFileApplyRejects(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change upstreams.Change
		want   string
	}{
		{"unknown integration", upstreams.Change{Integration: "nope", Kind: upstreams.KindPatch, From: "1.0.0", To: "1.0.1", Applied: true}, "integrations.nope: not in the file"},
		{"not a patch", upstreams.Change{Integration: "istio", Kind: upstreams.KindPatch, From: "1.24.2", To: "1.25.0", Applied: true}, "is not a patch update"},
		{"downgrade", upstreams.Change{Integration: "istio", Kind: upstreams.KindPatch, From: "1.24.2", To: "1.24.1", Applied: true}, "is not a patch update"},
		{"from not in matrix", upstreams.Change{Integration: "istio", Kind: upstreams.KindPatch, From: "1.24.1", To: "1.24.3", Applied: true}, "integrations.istio.versions: 1.24.1 is not in the matrix"},
		{"cloudcoil from elsewhere", upstreams.Change{Integration: "cloudcoil", Kind: upstreams.KindCloudcoil, From: "0.5.1", To: "0.5.4", Applied: true}, "cloudcoil.version"},
		{"cloudcoil beyond its minor", upstreams.Change{Integration: "cloudcoil", Kind: upstreams.KindCloudcoil, From: "0.5.3", To: "0.6.0", Applied: true}, "outside the compatible minor"},
		{"proposal marked applied", upstreams.Change{Integration: "istio", Kind: upstreams.KindProposed, From: "1.24.2", To: "1.25.0", Applied: true}, "is never applied"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, b := fixtureFile(t)
			err := f.Apply(upstreams.Updates{Changes: []upstreams.Change{tt.change}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Apply error = %v, want %q", err, tt.want)
			}
			// A refused plan leaves the file as it was.
			out, _ := f.Marshal()
			if !bytes.Equal(out, b) {
				t.Errorf("a refused plan changed the file")
			}
		})
	}
}

func TestApplyToCookiecutterFixture(t *testing.T) {
	f, plan := fixturePlan(t)
	tests := []struct {
		name string
		// the lines that may differ, by their key, and what they must contain afterwards
		want map[string][]string
	}{
		// crd_urls stays: update_releases.yml derives the new patch's URLs from it.
		{"cert-manager", map[string][]string{
			"versions": {`"'1.16.5'" # kept in step with models/upstreams.json`}}},
		{"istio", map[string][]string{
			"versions": {`"'1.24.4'"`}}},
		{"keda", nil}, // proposal only
		{"knative-eventing", map[string][]string{
			"versions": {`"'1.16.2'"`}}},
		{"knative-serving", map[string][]string{
			"versions": {`['1.16.1'] # a flow sequence works too`}}},
		{"kubernetes", map[string][]string{
			"versions": {`"'1.29.14', '1.30.10', '1.31.6', '1.32.2'"`}}},
		{"kyverno", map[string][]string{
			"versions": {`"'1.13.4'"`}}},
		{"velero", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := upstreamstest.ReadFile(t, upstreams.CookiecutterPath(tt.name))
			after, err := upstreams.ApplyToCookiecutter(before, *f.Integrations[tt.name], plan)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if !bytes.Equal(after, before) {
					t.Errorf("no patch for %s, but the file changed:\n%s", tt.name, after)
				}
				return
			}
			lines := strings.Split(string(after), "\n")
			changed := changedLines(t, before, after)
			matched := map[string]bool{}
			for _, i := range changed {
				key := ""
				for k := range tt.want {
					if strings.HasPrefix(strings.TrimSpace(lines[i]), k) {
						key = k
					}
				}
				if key == "" {
					t.Errorf("line %d changed unexpectedly: %q", i+1, lines[i])
					continue
				}
				matched[key] = true
				for _, s := range tt.want[key] {
					if !strings.Contains(lines[i], s) {
						t.Errorf("line %d = %q, want it to contain %q", i+1, lines[i], s)
					}
				}
			}
			for k := range tt.want {
				if !matched[k] {
					t.Errorf("no %s line changed", k)
				}
			}
			// Comments survive, byte for byte.
			for _, l := range strings.Split(string(before), "\n") {
				if i := strings.Index(l, "#"); i >= 0 && !strings.Contains(string(after), l[i:]) {
					t.Errorf("comment %q lost", l[i:])
				}
			}
			// The edited file agrees with the edited models/upstreams.json.
			updated, err := upstreams.ApplyToUpstreams(upstreamstest.ReadFile(t, upstreams.FilePath), plan)
			if err != nil {
				t.Fatal(err)
			}
			nf, err := upstreams.Parse(updated)
			if err != nil {
				t.Fatal(err)
			}
			if err := upstreams.CheckCookiecutter(after, *nf.Integrations[tt.name]); err != nil {
				t.Errorf("after the edit: %v", err)
			}
		})
	}
}

// layoutIntegration has a schema file that appears at a patch version, so a patch update
// changes how many schema files there are.
func layoutIntegration(t testing.TB, versions ...string) upstreams.Integration {
	t.Helper()
	v := "v"
	in := upstreams.Integration{
		Name: "layout", Repository: "example/layout", TagPrefix: &v, Versions: versions,
		SchemaURLs: []upstreams.SchemaURL{
			{URL: "https://example.com/releases/download/v{version}/a.yaml"},
			{URL: "https://example.com/releases/download/v{version}/b.yaml", Since: "1.2.5"},
			{URL: "https://example.com/releases/download/v{version}/old.yaml", Until: "1.2.5"},
			{URL: "https://example.com/releases/download/v{version}/c.yaml", Since: "1.2.5"},
		},
		Policy: upstreams.PolicyNewestMinor,
	}
	if len(versions) > 1 {
		in.Policy, in.MaintainedLines = upstreams.PolicyMaintainedLines, len(versions)
	}
	f := &upstreams.File{
		Cloudcoil:    upstreams.Cloudcoil{Package: "cloudcoil", Version: "0.5.3", Minor: "0.5"},
		Integrations: map[string]*upstreams.Integration{"layout": &in},
	}
	if errs := f.Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	return in
}

func patch(name, from, to string) upstreams.Updates {
	return upstreams.Updates{Changes: []upstreams.Change{{Integration: name, Kind: upstreams.KindPatch, From: from, To: to, Applied: true}}}
}

func TestApplyToCookiecutterShapes(t *testing.T) {
	in := layoutIntegration(t, "1.1.0", "1.2.3")
	one := layoutIntegration(t, "1.2.3") // one line: its crd_urls may change shape
	urls123 := "https://example.com/releases/download/v1.2.3/a.yaml,https://example.com/releases/download/v1.2.3/old.yaml"
	tests := []struct {
		name string
		in   upstreams.Integration
		plan upstreams.Updates
		src  string
		want string // "" when an error is expected
		err  string
	}{
		{
			name: "scalar list grows, separators kept",
			in:   one, plan: patch("layout", "1.2.3", "1.2.5"),
			src:  "default_context:\n  crd_urls: " + urls123 + "  # all files\n  versions: \"'1.2.3'\"\n",
			want: "default_context:\n  crd_urls: https://example.com/releases/download/v1.2.5/a.yaml,https://example.com/releases/download/v1.2.5/b.yaml,https://example.com/releases/download/v1.2.5/c.yaml  # all files\n  versions: \"'1.2.5'\"\n",
		},
		{
			name: "a layout change one crd_urls cannot derive for every line is a template migration",
			in:   in, plan: patch("layout", "1.2.3", "1.2.5"),
			src: "default_context:\n  crd_urls: " + urls123 + "\n  versions: \"'1.1.0','1.2.3'\"\n",
			err: "models/layout/cookiecutter.yaml: default_context.crd_urls through version_replacement_sed gives 1.1.0 the schema URLs",
		},
		{
			name: "block sequence grows between comments",
			in:   one, plan: patch("layout", "1.2.3", "1.2.5"),
			src:  "default_context:\n  # files\n  crd_urls:\n    - https://example.com/releases/download/v1.2.3/a.yaml\n    - https://example.com/releases/download/v1.2.3/old.yaml\n  # matrix\n  versions:\n    - '1.2.3'\n",
			want: "default_context:\n  # files\n  crd_urls:\n    - https://example.com/releases/download/v1.2.5/a.yaml\n    - https://example.com/releases/download/v1.2.5/b.yaml\n    - https://example.com/releases/download/v1.2.5/c.yaml\n  # matrix\n  versions:\n    - '1.2.5'\n",
		},
		{
			name: "older line patched: urls of the newest stay",
			in:   in, plan: patch("layout", "1.1.0", "1.1.4"),
			src:  "default_context:\n  crd_urls: \"" + urls123 + "\"\n  versions: [\"1.1.0\", \"1.2.3\"]\n",
			want: "default_context:\n  crd_urls: \"" + urls123 + "\"\n  versions: [\"1.1.4\", \"1.2.3\"]\n",
		},
		{
			name: "CRLF line endings kept",
			in:   in, plan: patch("layout", "1.1.0", "1.1.4"),
			src:  "default_context:\r\n  crd_urls: " + urls123 + "\r\n  versions: \"'1.1.0', '1.2.3'\"\r\n",
			want: "default_context:\r\n  crd_urls: " + urls123 + "\r\n  versions: \"'1.1.4', '1.2.3'\"\r\n",
		},
		{
			name: "other integrations' patches ignored",
			in:   in, plan: patch("other", "1.2.3", "1.2.4"),
			src:  "not: [valid",
			want: "not: [valid",
		},
		{
			name: "matrix drifted from upstreams.json",
			in:   in, plan: patch("layout", "1.2.3", "1.2.5"),
			src: "default_context:\n  crd_urls: " + urls123 + "\n  versions: \"'1.2.3'\"\n",
			err: "models/layout/cookiecutter.yaml: default_context.versions [1.2.3] differs from models/upstreams.json integrations.layout.versions [1.1.0 1.2.3]",
		},
		{
			name: "urls drifted from upstreams.json",
			in:   in, plan: patch("layout", "1.2.3", "1.2.5"),
			src: "default_context:\n  crd_urls: https://example.com/releases/download/v1.2.3/a.yaml\n  versions: \"'1.1.0', '1.2.3'\"\n",
			err: "default_context.crd_urls through version_replacement_sed gives 1.1.0 the schema URLs [https://example.com/releases/download/v1.1.0/a.yaml]",
		},
		{
			name: "missing key",
			in:   in, plan: patch("layout", "1.2.3", "1.2.5"),
			src: "default_context:\n  versions: \"'1.1.0', '1.2.3'\"\n",
			err: "default_context.crd_urls: missing",
		},
		{
			name: "no default_context",
			in:   in, plan: patch("layout", "1.2.3", "1.2.5"),
			src: "versions: \"'1.1.0'\"\n",
			err: "default_context: want a mapping",
		},
		{
			name: "not YAML",
			in:   in, plan: patch("layout", "1.2.3", "1.2.5"),
			src: "default_context: [\n",
			err: "models/layout/cookiecutter.yaml: yaml:",
		},
		{
			name: "block scalar not edited",
			in:   one, plan: patch("layout", "1.2.3", "1.2.5"),
			src: "default_context:\n  crd_urls: >-\n    " + urls123 + "\n  versions: \"'1.2.3'\"\n",
			err: "block scalars are not edited in place",
		},
		{
			name: "sequence with a comment between entries cannot grow",
			in:   one, plan: patch("layout", "1.2.3", "1.2.5"),
			src: "default_context:\n  crd_urls:\n    - https://example.com/releases/download/v1.2.3/a.yaml\n    # legacy\n    - https://example.com/releases/download/v1.2.3/old.yaml\n  versions: \"'1.2.3'\"\n",
			err: "not one per consecutive line",
		},
		{
			name: "flow sequence cannot grow",
			in:   one, plan: patch("layout", "1.2.3", "1.2.5"),
			src: "default_context:\n  crd_urls: [https://example.com/releases/download/v1.2.3/a.yaml, https://example.com/releases/download/v1.2.3/old.yaml]\n  versions: \"'1.2.3'\"\n",
			err: "only a non-empty block sequence can be resized",
		},
		{
			name: "multi-line plain scalar not edited",
			in:   in, plan: patch("layout", "1.1.0", "1.1.4"),
			src: "default_context:\n  crd_urls: " + urls123 + "\n  versions: 1.1.0,\n    1.2.3\n",
			err: "does not fit on one line",
		},
		{
			name: "from missing",
			in:   in, plan: patch("layout", "1.1.1", "1.1.4"),
			src: "default_context:\n  crd_urls: " + urls123 + "\n  versions: \"'1.1.0', '1.2.3'\"\n",
			err: "1.1.1 is not in [1.1.0 1.2.3]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := upstreams.ApplyToCookiecutter([]byte(tt.src), tt.in, tt.plan)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func FuzzApplyToCookiecutter(f *testing.F) {
	for _, name := range upstreamstest.Names() {
		f.Add(upstreamstest.ReadFile(f, upstreams.CookiecutterPath(name)))
	}
	f.Add([]byte("default_context:\n  crd_urls:\n    - https://example.com/releases/download/v1.2.3/a.yaml\n    - https://example.com/releases/download/v1.2.3/old.yaml\n  versions: [1.1.0, \"1.2.3\"]\n"))
	f.Add([]byte("# c\ndefault_context:\n  crd_urls: 'https://example.com/releases/download/v1.2.3/a.yaml,https://example.com/releases/download/v1.2.3/old.yaml' # c\n  versions: \"'1.1.0', '1.2.3'\"\n"))
	f.Add([]byte("default_context: &a\n  crd_urls: !!str x\n  versions: *a\n"))
	in := layoutIntegration(f, "1.1.0", "1.2.3")
	plan := upstreams.Updates{Changes: append(patch("layout", "1.2.3", "1.2.5").Changes, patch("layout", "1.1.0", "1.1.4").Changes...)}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := upstreams.ApplyToCookiecutter(b, in, plan)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "models/layout/cookiecutter.yaml: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// Whatever it accepted, the result agrees with the updated matrix and URLs.
		after := layoutIntegration(t, "1.1.4", "1.2.5")
		if err := upstreams.CheckCookiecutter(out, after); err != nil {
			t.Fatalf("accepted %q but produced %q: %v", b, out, err)
		}
		if again, err := upstreams.ApplyToCookiecutter(out, after, upstreams.Updates{}); err != nil || !bytes.Equal(again, out) {
			t.Fatal(fmt.Sprint("an empty plan must not change the file: ", err))
		}
	})
}

// The real contract: update_releases.yml rewrites the first "<sed>X.Y.Z/" of each URL.
func TestDeriveSchemaURLs(t *testing.T) {
	v := func(s string) upstreams.Version { x, _ := upstreams.ParseVersion(s); return x }
	tests := []struct {
		name, sed string
		urls      []string
		version   string
		want      []string
	}{
		{"release asset, older crd_urls", "releases/download/v",
			[]string{"https://github.com/cert-manager/cert-manager/releases/download/v1.16.3/cert-manager.crds.yaml"}, "1.17.1",
			[]string{"https://github.com/cert-manager/cert-manager/releases/download/v1.17.1/cert-manager.crds.yaml"}},
		{"bare tag", "refs/tags/", []string{"https://raw.githubusercontent.com/istio/istio/refs/tags/1.24.2/manifests/crd-all.gen.yaml"}, "1.25.0",
			[]string{"https://raw.githubusercontent.com/istio/istio/refs/tags/1.25.0/manifests/crd-all.gen.yaml"}},
		{"only the first occurrence: the asset name keeps its version", "releases/download/v",
			[]string{"https://github.com/kedacore/keda/releases/download/v2.16.1/keda-2.16.1-crds.yaml"}, "2.17.0",
			[]string{"https://github.com/kedacore/keda/releases/download/v2.17.0/keda-2.16.1-crds.yaml"}},
		{"each URL of a list", "refs/tags/v", []string{"https://x/refs/tags/v1.15.2/a.yaml", "https://x/refs/tags/v1.15.2/b.yaml"}, "1.16.0",
			[]string{"https://x/refs/tags/v1.16.0/a.yaml", "https://x/refs/tags/v1.16.0/b.yaml"}},
		{"no match leaves the URL", "releases/download/v", []string{"https://x/refs/tags/v1.15.2/a.yaml"}, "1.16.0",
			[]string{"https://x/refs/tags/v1.15.2/a.yaml"}},
		{"the version must end in a slash", "releases/download/knative-v", []string{"https://x/releases/download/knative-v1.17.0.yaml"}, "1.18.0",
			[]string{"https://x/releases/download/knative-v1.17.0.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := upstreams.DeriveSchemaURLs(tt.urls, tt.sed, v(tt.version)); !slices.Equal(got, tt.want) {
				t.Errorf("DeriveSchemaURLs = %q, want %q", got, tt.want)
			}
		})
	}
}

// KEDA's asset name repeats the version, which the template's rewrite does not reach: a
// patch therefore names the new version's URLs in crd_urls, and two KEDA lines would need
// a template migration.
func TestKEDAPatchMovesCrdURLs(t *testing.T) {
	f, _ := fixtureFile(t)
	keda := *f.Integrations["keda"]
	before := upstreamstest.ReadFile(t, upstreams.CookiecutterPath("keda"))
	after, err := upstreams.ApplyToCookiecutter(before, keda, patch("keda", "2.16.1", "2.16.4"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(after), "releases/download/v2.16.4/keda-2.16.4-crds.yaml") || !strings.Contains(string(after), `versions: "'2.16.4'"`) {
		t.Errorf("keda after the patch:\n%s", after)
	}
	two := keda
	two.Versions, two.Policy, two.MaintainedLines = []string{"2.15.0", "2.16.1"}, upstreams.PolicyMaintainedLines, 2
	src := strings.Replace(string(before), `versions: "'2.16.1'"`, `versions: "'2.15.0', '2.16.1'"`, 1)
	var migration *upstreams.TemplateMigrationError
	if err := upstreams.CheckCookiecutter([]byte(src), two); !errors.As(err, &migration) || migration.Version != "2.15.0" || !strings.Contains(migration.Fix(), "per line") {
		t.Errorf("two KEDA lines: err = %v, want a template migration for 2.15.0", err)
	}
}
