package upstreams_test

import (
	"strings"
	"testing"

	"dagger/shipyard/models/upstreams"
)

const templatePyproject = `[project]
name = "cloudcoil.models.{{ cookiecutter.module_name }}"
dependencies = [
    "cloudcoil>=0.5.3,<0.6",
{%- if cookiecutter.dependencies %}
    "{{ cookiecutter.dependencies }}",
{%- endif %}
]

[dependency-groups]
dev = [
    "pytest>=8.3",
    "cloudcoil[codegen,test] >= 0.5.3, < 0.6",
    "cloudcoil-models-extra>=1.0",
]
`

func TestRaiseRequirement(t *testing.T) {
	minor := upstreams.Line{Major: 0, Minor: 5}
	tests := []struct {
		name      string
		data      string
		version   string
		want      string // the output, "" when an error is wanted
		wantFound int
		wantErr   string
	}{
		{"both requirements move, spelling kept", templatePyproject, "0.5.4",
			strings.NewReplacer(`"cloudcoil>=0.5.3,<0.6"`, `"cloudcoil>=0.5.4,<0.6"`, `>= 0.5.3, < 0.6"`, `>= 0.5.4, < 0.6"`).Replace(templatePyproject), 2, ""},
		{"already there", strings.ReplaceAll(templatePyproject, "0.5.3", "0.5.4"), "0.5.4",
			strings.ReplaceAll(templatePyproject, "0.5.3", "0.5.4"), 2, ""},
		{"a file that declares none", "[project]\ndependencies = [\"httpx\"]\n", "0.5.4", "[project]\ndependencies = [\"httpx\"]\n", 0, ""},
		{"a requirement of another minor", strings.Replace(templatePyproject, "cloudcoil>=0.5.3,<0.6", "cloudcoil>=0.4.1,<0.5", 1), "0.5.4",
			"", 0, "pyproject.toml:4: \"cloudcoil>=0.4.1,<0.5\": the lower bound 0.4.1 is not a release of the compatible minor 0.5; moving Cloudcoil to another minor is a deliberate migration"},
		{"an open upper bound", strings.Replace(templatePyproject, "cloudcoil>=0.5.3,<0.6", "cloudcoil>=0.5.3", 1), "0.5.4",
			"", 0, "want >=X.Y.Z,<X.(Y+1)"},
		{"a pin", strings.Replace(templatePyproject, "cloudcoil>=0.5.3,<0.6", "cloudcoil==0.5.3", 1), "0.5.4",
			"", 0, `the clause "==0.5.3" is not`},
		{"a new minor is never applied", templatePyproject, "0.6.1", "", 0, "not a final release of the compatible minor 0.5"},
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
			if string(out) != tc.want || found != tc.wantFound {
				t.Errorf("found %d (want %d), out:\n%s\nwant:\n%s", found, tc.wantFound, out, tc.want)
			}
		})
	}
}

func FuzzRaiseRequirement(f *testing.F) {
	f.Add([]byte(templatePyproject), "0.5.4")
	f.Add([]byte(`x = ["cloudcoil>=0.5.3,<0.6", "cloudcoil [a]>=0.5.0 ,<0.6"]`), "0.5.9")
	f.Fuzz(func(t *testing.T, data []byte, version string) {
		out, _, err := upstreams.RaiseRequirement("pyproject.toml", data, "cloudcoil", upstreams.Line{Major: 0, Minor: 5}, version)
		if err != nil {
			return
		}
		// Raising again to the same version changes nothing.
		again, _, err := upstreams.RaiseRequirement("pyproject.toml", out, "cloudcoil", upstreams.Line{Major: 0, Minor: 5}, version)
		if err != nil || string(again) != string(out) {
			t.Errorf("not idempotent: %v\n%q\n%q", err, out, again)
		}
	})
}
