package modelenv

import (
	"strings"
	"testing"
)

const pyproject = `[project]
name = "cloudcoil.models.keda"
version = "2.16.1.0"  # set by the release
dependencies = ["cloudcoil>=0.5.3,<0.6"]

[[tool.cloudcoil.codegen.models]]
namespace = "cloudcoil.models.keda"
input = [
    "https://github.com/kedacore/keda/releases/download/v2.16.1/keda-2.16.1-crds.yaml",
    "https://example.org/unversioned.yaml",
]

[[tool.cloudcoil.codegen.models]]
namespace = "cloudcoil.models.keda.extra"
input = "https://github.com/kedacore/keda/releases/download/v2.16.1/extra.yaml"
`

var kedaLines = LineConfig{Path: UpdateReleasesWorkflow, Versions: []string{"2.15.2", "2.16.1"}, Prefix: "releases/download/v"}

func TestSelectUpstream(t *testing.T) {
	const current = "releases/download/v2.16.1/keda-2.16.1-crds.yaml"
	tests := []struct {
		name     string
		file     string
		lines    LineConfig
		upstream string
		want     string // the file SelectUpstream returns
		wantErr  string
	}{
		// The release sed rewrites the version after the prefix only: the file name keeps
		// the version crd_urls names, as the maintainers' workflow fetches it.
		{name: "the version after the prefix changes, in an array and a string", file: pyproject, lines: kedaLines, upstream: "2.15.2",
			want: strings.ReplaceAll(strings.Replace(pyproject, current, "releases/download/v2.15.2/keda-2.16.1-crds.yaml", 1), "v2.16.1/extra", "v2.15.2/extra")},
		{name: "the current version is a no-op", file: pyproject, lines: kedaLines, upstream: "2.16.1", want: pyproject},
		{name: "an unconfigured upstream is refused", file: pyproject, lines: kedaLines, upstream: "2.17.0", wantErr: "not one of the release lines"},
		{name: "no URL has the prefix", file: strings.ReplaceAll(pyproject, "releases/download/v2.16.1", "raw/2.16.1"), lines: kedaLines, upstream: "2.15.2", wantErr: "no [[tool.cloudcoil.codegen.models]] input URL"},
		{name: "prefix without a version", file: strings.Replace(pyproject, "download/v2.16.1/keda", "download/vlatest/keda", 1), lines: kedaLines, upstream: "2.15.2", wantErr: "pyproject.toml:9: input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SelectUpstream([]byte(tt.file), tt.lines, tt.upstream)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("SelectUpstream =\n%s\nwant\n%s", got, tt.want)
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
		got, ok := CompareVersions(tt.a, tt.b)
		if got != tt.want || ok != tt.ok {
			t.Errorf("CompareVersions(%s, %s) = %d, %v; want %d, %v", tt.a, tt.b, got, ok, tt.want, tt.ok)
		}
	}
}
