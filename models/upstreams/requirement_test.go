package upstreams_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/models/genrepo"
	"dagger/shipyard/models/upstreams"
)

// templatePyproject has the real template's shapes: an unbounded runtime requirement, a
// Jinja loop inside the dependencies array, a generation requirement without a version,
// and strings that name cloudcoil but are no requirement (a keyword, a coverage path,
// hatch's only-include).
const templatePyproject = `[project]
name = "cloudcoil.models.{{ cookiecutter.module_name }}"
dependencies = [
    "cloudcoil>=0.4.0",
{%- if cookiecutter.dependencies %}
{%- for dependency in cookiecutter.dependencies.split(',') %}
    "{{ dependency | trim }}",
{%- endfor %}
{%- endif %}
]
keywords = ["kubernetes", "cloudcoil", "cloudcoil-models"]

[project.optional-dependencies]
test = ["cloudcoil [test] >= 0.4.1 , < 0.5"]

[dependency-groups]
dev = [
    "pytest>=8.3.4",
    "cloudcoil[codegen,test]"
]

[tool.coverage.run]
omit = ["cloudcoil/models/**"]

[tool.hatch.build.targets.wheel]
only-include = ["cloudcoil"]
`

func TestRaiseRequirement(t *testing.T) {
	minor := upstreams.Line{Major: 0, Minor: 4}
	tests := []struct {
		name      string
		data      string
		version   string
		want      string // the output, "" when an error is wanted
		wantFound []string
		wantErr   string
	}{
		{"lower bounds move within their minor, spelling kept", templatePyproject, "0.4.5",
			strings.NewReplacer(`"cloudcoil>=0.4.0"`, `"cloudcoil>=0.4.5"`, `>= 0.4.1 , < 0.5`, `>= 0.4.5 , < 0.5`).Replace(templatePyproject),
			[]string{"project.dependencies:4", "project.optional-dependencies.test:14", "dependency-groups.dev:19"}, ""},
		{"already there", strings.ReplaceAll(templatePyproject, "0.4.0", "0.4.5"), "0.4.1",
			strings.ReplaceAll(templatePyproject, "0.4.0", "0.4.5"), []string{"project.dependencies:4", "project.optional-dependencies.test:14", "dependency-groups.dev:19"}, ""},
		{"a file that declares none", "[project]\ndependencies = [\"httpx\"]\nkeywords = [\"cloudcoil\"]\n", "0.4.5",
			"[project]\ndependencies = [\"httpx\"]\nkeywords = [\"cloudcoil\"]\n", nil, ""},
		{"a requirement of another minor", strings.Replace(templatePyproject, "cloudcoil>=0.4.0", "cloudcoil>=0.3.1", 1), "0.4.5",
			"", nil, `pyproject.toml:4: project.dependencies "cloudcoil>=0.3.1": the lower bound 0.3.1 is not in the minor 0.4`},
		{"an upper bound that excludes the version", strings.Replace(templatePyproject, "cloudcoil>=0.4.0", "cloudcoil>=0.4.0,<0.4.3", 1), "0.4.5",
			"", nil, "the upper bound <0.4.3 excludes 0.4.5"},
		{"a pin", strings.Replace(templatePyproject, "cloudcoil>=0.4.0", "cloudcoil==0.4.0", 1), "0.4.5",
			"", nil, `the clause "==0.4.0" is neither`},
		{"a new minor is never applied", templatePyproject, "0.5.1", "", nil, "not a final release of its minor 0.4"},
		{"not TOML", "[project\ndependencies = [\"cloudcoil>=0.4.0\"]\n", "0.4.5", "", nil, "pyproject.toml:1:"},
		{"dependencies not an array", "[project]\ndependencies = \"cloudcoil>=0.4.0\"\n", "0.4.5", "", nil, "pyproject.toml:2: project.dependencies: want an array"},
		{"an escaped requirement", "[project]\ndependencies = [\"cloudcoil\\u003e=0.4.0\"]\n", "0.4.5", "", nil, "without escapes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, found, err := upstreams.RaiseRequirement("pyproject.toml", []byte(tc.data), "cloudcoil", minor, tc.version)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var where []string
			for _, r := range found {
				where = append(where, r.Table+":"+strconv.Itoa(r.Line))
			}
			if string(out) != tc.want || strings.Join(where, " ") != strings.Join(tc.wantFound, " ") {
				t.Errorf("found %q (want %q), out:\n%s\nwant:\n%s", where, tc.wantFound, out, tc.want)
			}
		})
	}
}

func TestRequirementMinor(t *testing.T) {
	minor, ok, err := upstreams.RequirementMinor("pyproject.toml", []byte(templatePyproject), "cloudcoil")
	if err != nil || !ok || minor != (upstreams.Line{Major: 0, Minor: 4}) {
		t.Errorf("RequirementMinor = %v, %v, %v; want 0.4", minor, ok, err)
	}
	mixed := strings.Replace(templatePyproject, ">= 0.4.1", ">= 0.5.0", 1)
	if _, _, err := upstreams.RequirementMinor("pyproject.toml", []byte(mixed), "cloudcoil"); err == nil || !strings.Contains(err.Error(), "pyproject.toml:14:") {
		t.Errorf("mixed minors: err = %v", err)
	}
	if _, ok, err := upstreams.RequirementMinor("pyproject.toml", []byte("[project]\ndependencies = [\"cloudcoil\"]\n"), "cloudcoil"); ok || err != nil {
		t.Errorf("no lower bound: ok %v, err %v", ok, err)
	}
}

// TestRequirementsOfTheRealTemplate reads the real model template: exactly two
// requirements on Cloudcoil (the unbounded runtime one and the generation one without a
// version), none of the other strings that name it, and raising within 0.4 edits exactly
// the lower bound's bytes.
func TestRequirementsOfTheRealTemplate(t *testing.T) {
	path := filepath.Join(corpus.Dir(t, "cloudcoil"), "tree", filepath.FromSlash(upstreams.TemplatePyproject))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := upstreams.FindRequirements(upstreams.TemplatePyproject, data, "cloudcoil")
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[0].Text != "cloudcoil>=0.4.0" || reqs[0].Table != "project.dependencies" ||
		reqs[1].Text != "cloudcoil[codegen,test]" || reqs[1].Table != "dependency-groups.dev" {
		t.Fatalf("requirements = %+v", reqs)
	}
	out, _, err := upstreams.RaiseRequirement(upstreams.TemplatePyproject, data, "cloudcoil", upstreams.Line{Major: 0, Minor: 4}, "0.4.7")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(string(data), `"cloudcoil>=0.4.0",`, `"cloudcoil>=0.4.7",`, 1); string(out) != want {
		t.Errorf("the edit is not exactly the lower bound:\n%s", out)
	}
	if _, _, err := upstreams.RaiseRequirement(upstreams.TemplatePyproject, data, "cloudcoil", upstreams.Line{Major: 0, Minor: 5}, "0.5.2"); err == nil ||
		!strings.Contains(err.Error(), upstreams.TemplatePyproject+":17:") || !strings.Contains(err.Error(), "migration") {
		t.Errorf("a requirement on 0.4 raised to 0.5: err = %v", err)
	}
}

func FuzzRaiseRequirement(f *testing.F) {
	f.Add([]byte(templatePyproject), "0.4.4")
	f.Add([]byte(`[project]
dependencies = ["cloudcoil>=0.4.3,<0.5", "cloudcoil [a]>=0.4.0 ,<0.6"]`), "0.4.9")
	f.Fuzz(func(t *testing.T, data []byte, version string) {
		out, _, err := upstreams.RaiseRequirement("pyproject.toml", data, "cloudcoil", upstreams.Line{Major: 0, Minor: 4}, version)
		if err != nil {
			return
		}
		// Raising again to the same version changes nothing.
		again, _, err := upstreams.RaiseRequirement("pyproject.toml", out, "cloudcoil", upstreams.Line{Major: 0, Minor: 4}, version)
		if err != nil || string(again) != string(out) {
			t.Errorf("not idempotent: %v\n%q\n%q", err, out, again)
		}
	})
}

// The real template with Shipyard's own template patch applied still reads: the patch's
// entry point is a Jinja expression used as a TOML key, which once stopped the reader
// ("not TOML once Jinja statements are set aside: invalid character at start of key").
func TestFindRequirementsInThePatchedTemplate(t *testing.T) {
	root := filepath.Join(corpus.Dir(t, "cloudcoil"), "tree")
	work := t.TempDir()
	tmpl := filepath.Join(work, filepath.FromSlash(upstreams.TemplatePyproject))
	original, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(upstreams.TemplatePyproject)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(tmpl), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tmpl, original, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "apply", "-p1", "--include="+upstreams.TemplatePyproject, "-")
	cmd.Dir = work
	patch, err := genrepo.TemplatePatchFor(map[string][]byte{upstreams.TemplatePyproject: original}, genrepo.CloudcoilBound{Minor: upstreams.Line{Major: 0, Minor: 4}})
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = strings.NewReader(patch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s", err, out)
	}
	patched, err := os.ReadFile(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(patched), "{{ cookiecutter.module_name }} = ") {
		t.Fatal("the patch no longer writes a Jinja expression as a key; this test reads nothing new")
	}
	reqs, err := upstreams.FindRequirements(upstreams.TemplatePyproject, patched, "cloudcoil")
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[0].Table != "project.dependencies" || reqs[1].Table != "dependency-groups.dev" {
		t.Errorf("requirements in the patched template = %+v, want the runtime and the dev group's", reqs)
	}
}

// Jinja expressions read as TOML wherever they stand: in strings, as keys and as values.
func TestFindRequirementsWithJinjaExpressions(t *testing.T) {
	for _, tt := range []struct{ name, file string }{
		{"a key", "[project]\ndependencies = [\"cloudcoil>=0.5.0\"]\n[project.entry-points.x]\n{{ cookiecutter.module_name }} = \"cloudcoil.models.{{ cookiecutter.module_name }}\"\n"},
		{"a value", "[project]\nversion = {{ cookiecutter.version }}\ndependencies = [\"cloudcoil>=0.5.0\"]\n"},
		{"a dotted key", "[project]\ndependencies = [\"cloudcoil>=0.5.0\"]\n[tool]\nx.{{ a }}.y = 1\n"},
		{"a comment", "[project]\n# {{ not a key\ndependencies = [\"cloudcoil>=0.5.0\"]\n"},
	} {
		reqs, err := upstreams.FindRequirements("pyproject.toml", []byte(tt.file), "cloudcoil")
		if err != nil || len(reqs) != 1 || reqs[0].Text != "cloudcoil>=0.5.0" || reqs[0].Line != strings.Count(tt.file[:strings.Index(tt.file, "cloudcoil>=")], "\n")+1 {
			t.Errorf("%s: %+v, %v", tt.name, reqs, err)
		}
	}
}

// The runtime requirement is bounded below the next minor; a bound written, an exact pin,
// a requirement without a version and other tables stay as written.
func TestBoundRequirement(t *testing.T) {
	minor := upstreams.Line{Major: 0, Minor: 4}
	doc := func(deps string) string {
		return "[project]\nname = \"x\"\ndependencies = [\n" + deps + "]\n\n[dependency-groups]\ndev = [\"cloudcoil[codegen,test]>=0.4.0\"]\n"
	}
	tests := []struct {
		name, deps, floor, want, wantErr string
	}{
		{"lower bound only", "    \"cloudcoil>=0.4.0\",\n", "", "    \"cloudcoil>=0.4.0,<0.5\",\n", ""},
		{"raised lower bound", "    \"cloudcoil>=0.4.2\",\n", "", "    \"cloudcoil>=0.4.2,<0.5\",\n", ""},
		{"an older minor's lower bound", "    \"cloudcoil>=0.3.9\",\n", "", "    \"cloudcoil>=0.3.9,<0.5\",\n", ""},
		{"an older minor's lower bound raised to the floor", "    \"cloudcoil>=0.3.9\",\n", "0.4.7", "    \"cloudcoil>=0.4.7,<0.5\",\n", ""},
		{"a lower bound in the minor stays with a floor", "    \"cloudcoil >= 0.4.2\",\n", "0.4.7", "    \"cloudcoil >= 0.4.2,<0.5\",\n", ""},
		{"a floor outside the minor", "    \"cloudcoil>=0.3.9\",\n", "0.5.1", "", "cannot raise cloudcoil to \"0.5.1\""},
		{"with extras and a marker", "    \"cloudcoil[codegen] >= 0.4.1 ; python_version >= '3.10'\",\n", "", "    \"cloudcoil[codegen] >= 0.4.1,<0.5 ; python_version >= '3.10'\",\n", ""},
		{"upper bound written", "    \"cloudcoil>=0.4.0,<0.4.9\",\n", "", "    \"cloudcoil>=0.4.0,<0.4.9\",\n", ""},
		{"exact pin", "    \"cloudcoil==0.4.3\",\n", "", "    \"cloudcoil==0.4.3\",\n", ""},
		{"no version", "    \"cloudcoil\",\n", "", "    \"cloudcoil\",\n", ""},
		{"beyond the minor", "    \"cloudcoil>=0.5.1\",\n", "", "", "pyproject.toml:4: project.dependencies \"cloudcoil>=0.5.1\": the lower bound is beyond Cloudcoil's minor 0.4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := upstreams.BoundRequirement("pyproject.toml", []byte(doc(tt.deps)), "cloudcoil", "project.dependencies", minor, tt.floor)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != doc(tt.want) {
				t.Errorf("got\n%s\nwant\n%s", out, doc(tt.want))
			}
		})
	}
}
