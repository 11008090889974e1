package modelrelease

import (
	"slices"
	"strings"
	"testing"
)

const pyproject = `[project]
name = "cloudcoil.models.keda"
version = "2.16.1.0"  # set by the release
dependencies = ["cloudcoil>=0.5.3,<0.6"]

[tool.cloudcoil-models]
upstream-versions = ["2.15.2", "2.16.1"]
version-prefix = "releases/download/v"

[[tool.cloudcoil.codegen.models]]
namespace = "cloudcoil.models.keda"
input = "https://github.com/kedacore/keda/releases/download/v2.16.1/keda-2.16.1-crds.yaml"

[[tool.cloudcoil.codegen.models]]
namespace = "cloudcoil.models.keda.extra"
input = "https://example.org/unversioned.yaml"
`

func TestSelectUpstream(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		upstream string
		wantURL  string // the edited input line's URL
		wantErr  string
	}{
		{name: "both occurrences of the version change", file: pyproject, upstream: "2.15.2",
			wantURL: "https://github.com/kedacore/keda/releases/download/v2.15.2/keda-2.15.2-crds.yaml"},
		{name: "the current version is a no-op", file: pyproject, upstream: "2.16.1",
			wantURL: "https://github.com/kedacore/keda/releases/download/v2.16.1/keda-2.16.1-crds.yaml"},
		{name: "an unconfigured upstream is refused", file: pyproject, upstream: "2.17.0", wantErr: "not configured"},
		{name: "no table", file: "[project]\nname = \"x\"\n", upstream: "1.0.0", wantErr: "[tool.cloudcoil-models] has no upstream-versions"},
		{name: "no prefix", file: strings.Replace(pyproject, `version-prefix = "releases/download/v"`, "", 1), upstream: "2.15.2", wantErr: "no version-prefix"},
		{name: "malformed matrix entry", file: strings.Replace(pyproject, `"2.15.2", "2.16.1"`, `"2.15", "2.16.1"`, 1), upstream: "2.16.1", wantErr: `"2.15" is not an X.Y.Z`},
		{name: "no URL has the prefix", file: strings.Replace(pyproject, "releases/download/v2.16.1", "raw/2.16.1", 1), upstream: "2.15.2", wantErr: "no [[tool.cloudcoil.codegen.models]] input URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SelectUpstream([]byte(tt.file), tt.upstream)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "pyproject.toml") {
					t.Fatalf("err = %v, want one naming pyproject.toml and %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), `input = "`+tt.wantURL+`"`) {
				t.Errorf("edited file lacks %s:\n%s", tt.wantURL, got)
			}
			// Everything but the edited URL stays byte for byte.
			want := strings.Replace(tt.file, "https://github.com/kedacore/keda/releases/download/v2.16.1/keda-2.16.1-crds.yaml", tt.wantURL, 1)
			if string(got) != want {
				t.Errorf("other bytes changed:\n%s", got)
			}
		})
	}
}

func TestProjectVersion(t *testing.T) {
	p, err := ReadProject([]byte(pyproject))
	if err != nil || p != (Project{Name: "cloudcoil.models.keda", Version: "2.16.1.0"}) {
		t.Fatalf("ReadProject = %+v, %v", p, err)
	}
	got, err := SetVersion([]byte(pyproject), "2.15.2.3")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(pyproject, `version = "2.16.1.0"  # set by the release`, `version = "2.15.2.3"  # set by the release`, 1)
	if string(got) != want {
		t.Errorf("SetVersion changed more than the version:\n%s", got)
	}
	for _, tt := range []struct{ file, version, wantErr string }{
		{pyproject, "2.15.2", "not an <upstream>.<packaging>"},
		{"[project]\nname = \"x\"\ndynamic = [\"version\"]\n", "1.0.0.0", "no literal version"},
		// A version key in another table is not the project's.
		{"[project]\nname = \"x\"\n[tool.other]\nversion = \"1\"\n", "1.0.0.0", "no literal version"},
		{"[project]\nname = \"x\"\nversion = \"1.0.0.0\n", "1.0.0.1", "pyproject.toml:3:"},
	} {
		if _, err := SetVersion([]byte(tt.file), tt.version); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("SetVersion(%q) err = %v, want %q", tt.version, err, tt.wantErr)
		}
	}
	if _, err := ReadProject([]byte("[project]\nname = \"x\"\n")); err == nil || !strings.Contains(err.Error(), "dynamic") {
		t.Errorf("ReadProject without version: %v", err)
	}
	if _, err := ReadProject([]byte("[project]\nname = \"x\"\nversion = 1\n")); err == nil || !strings.Contains(err.Error(), "project.version is a number") {
		t.Errorf("ReadProject with a number for version: %v", err)
	}
	// Any TOML spelling of the same values reads and edits the same: a literal string, a
	// dotted key, a comment between.
	other := "project.name = 'x' # the distribution\nproject.version = 'v1.0.0.0'\n"
	if p, err := ReadProject([]byte(other)); err != nil || p != (Project{Name: "x", Version: "v1.0.0.0"}) {
		t.Errorf("ReadProject(dotted keys) = %+v, %v", p, err)
	}
	if got, err := SetVersion([]byte(other), "1.0.0.1"); err != nil || string(got) != strings.Replace(other, "'v1.0.0.0'", `"1.0.0.1"`, 1) {
		t.Errorf("SetVersion(dotted keys) = %q, %v", got, err)
	}
}

func TestUpstreamsMultiLineArray(t *testing.T) {
	file := "[tool.cloudcoil-models]\nupstream-versions = [\n  \"1.16.3\", # oldest kept\n  \"1.17.1\",\n]\nversion-prefix = \"v\"\n"
	got, prefix, err := Upstreams([]byte(file))
	if err != nil || !slices.Equal(got, []string{"1.16.3", "1.17.1"}) || prefix != "v" {
		t.Errorf("Upstreams = %q, %q, %v", got, prefix, err)
	}
}

func TestCompareVersions(t *testing.T) {
	tests := []struct {
		a, b string
		want int
		ok   bool
	}{
		{"1.31.5.10", "1.31.5.9", 1, true},
		{"1.31.5.9", "1.31.5.10", -1, true},
		{"v1.31.5.2", "1.31.5.2", 0, true},
		{"1.32.0.0", "1.31.9.9", 1, true},
		{"1.31.5", "1.31.5.0", 0, false},
		{"1.31.05.0", "1.31.5.0", 0, false},
	}
	for _, tt := range tests {
		got, ok := compareVersions(tt.a, tt.b)
		if got != tt.want || ok != tt.ok {
			t.Errorf("compareVersions(%s, %s) = %d, %v; want %d, %v", tt.a, tt.b, got, ok, tt.want, tt.ok)
		}
	}
}
