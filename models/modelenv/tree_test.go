package modelenv

import (
	"strings"
	"testing"
)

func TestFindPackageDir(t *testing.T) {
	const settings = "[project]\nname = \"cloudcoil.models.keda\"\nversion = \"2.16.1.0\"\n\n[[tool.cloudcoil.codegen.models]]\nnamespace = \"cloudcoil.models.keda\"\ninput = \"https://example.test/v2.16.1/keda.yaml\"\n"
	tests := []struct {
		name      string
		tree      Tree
		want, err string
	}{
		{"the template's layout: the package at the root", Tree{PyprojectPath: []byte(settings), "cloudcoil/models/keda/__init__.py": nil, "tests/test_import.py": nil}, "cloudcoil/models/keda", ""},
		{"a repository that really uses src/", Tree{PyprojectPath: []byte(settings), "src/cloudcoil/models/keda/v1.py": nil}, "src/cloudcoil/models/keda", ""},
		{"a second entry with the same namespace is one package", Tree{
			PyprojectPath:                 []byte(settings + "\n[[tool.cloudcoil.codegen.models]]\nnamespace = \"cloudcoil.models.keda\"\ninput = \"https://example.test/extra.yaml\"\n"),
			"cloudcoil/models/keda/v1.py": nil}, "cloudcoil/models/keda", ""},
		{"no pyproject.toml", Tree{"cloudcoil/models/keda/v1.py": nil}, "", "no pyproject.toml at the repository root"},
		{"no generator settings", Tree{PyprojectPath: []byte("[project]\nname = \"x\"\n")}, "", "no [[tool.cloudcoil.codegen.models]] namespace"},
		{"not generated yet", Tree{PyprojectPath: []byte(settings), "cloudcoil/models/other/v1.py": nil}, "", `pyproject.toml:6: namespace "cloudcoil.models.keda": no package at cloudcoil/models/keda/ (nor src/cloudcoil/models/keda/); run the generation (make gen-models)`},
		{"both layouts at once", Tree{PyprojectPath: []byte(settings), "cloudcoil/models/keda/v1.py": nil, "src/cloudcoil/models/keda/v1.py": nil}, "", "both cloudcoil/models/keda/ and src/cloudcoil/models/keda/ hold files"},
		{"two packages", Tree{PyprojectPath: []byte(settings + "\n[[tool.cloudcoil.codegen.models]]\nnamespace = \"cloudcoil.models.other\"\n")}, "", "several generator namespaces (cloudcoil.models.keda, cloudcoil.models.other)"},
		{"a path, not a package name", Tree{PyprojectPath: []byte(strings.Replace(settings, `namespace = "cloudcoil.models.keda"`, `namespace = "../etc"`, 1))}, "", "is not a dotted Python package name"},
		{"broken TOML", Tree{PyprojectPath: []byte("[project\n")}, "", "pyproject.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FindPackageDir(tt.tree)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestArtifactRulesFollowTheLayout(t *testing.T) {
	if root := ArtifactRules("cloudcoil/models/keda"); root.ImportRoot != "" || root.EntryPointGroup != "cloudcoil_models" {
		t.Errorf("root layout: %+v", root)
	}
	if src := ArtifactRules("src/cloudcoil/models/keda"); src.ImportRoot != "src" {
		t.Errorf("src layout: %+v", src)
	}
}
