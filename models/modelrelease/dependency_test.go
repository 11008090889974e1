package modelrelease

import (
	"strings"
	"testing"
)

func lockWith(cloudcoil string) string {
	return `version = 1

[[package]]
name = "cloudcoil"
version = "` + cloudcoil + `"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "cloudcoil-models-keda"
version = "2.16.1.0"
source = { editable = "." }
`
}

func TestCheckCloudcoilDependency(t *testing.T) {
	project := func(deps string) string {
		return "[project]\nname = \"cloudcoil.models.keda\"\nversion = \"2.16.1.0\"\ndependencies = " + deps + "\n\n[tool.x]\ndependencies = [\"cloudcoil\"]\n"
	}
	tests := []struct {
		name, pyproject, lock string
		want                  []string // problem substrings; none means it passes
	}{
		{"range within the minor", project(`["cloudcoil>=0.5.3,<0.6"]`), lockWith("0.5.4"), nil},
		{"compatible release operator", project(`["cloudcoil~=0.5.3"]`), lockWith("0.5.3"), nil},
		{"extras and a multi-line array", project("[\n    \"pydantic>=2\",  # models\n    \"Cloudcoil[codegen] >=0.5.3, <0.6.0\",\n]"), lockWith("0.5.9"), nil},
		{"no upper bound", project(`["cloudcoil>=0.5.3"]`), lockWith("0.5.4"), []string{"one upper bound"}},
		{"upper bound two minors away", project(`["cloudcoil>=0.5.3,<0.7"]`), lockWith("0.6.1"), []string{"not the next minor 0.6"}},
		{"required twice", project(`["cloudcoil>=0.5.3,<0.6", "cloudcoil[codegen]"]`), lockWith("0.5.4"), []string{"found 2"}},
		{"not required", project(`["pydantic>=2"]`), lockWith("0.5.4"), []string{"found 0"}},
		{"locked below the range", project(`["cloudcoil>=0.5.3,<0.6"]`), lockWith("0.5.1"), []string{"outside the required range"}},
		{"locked at the next minor", project(`["cloudcoil>=0.5.3,<0.6"]`), lockWith("0.6.0"), []string{"outside the required range"}},
		{"locked pre-release", project(`["cloudcoil>=0.5.3,<0.6"]`), lockWith("0.5.6rc1"), []string{"not a final release"}},
		{"not locked", project(`["cloudcoil>=0.5.3,<0.6"]`), "version = 1\n", []string{"found 0"}},
		{"pinned exactly", project(`["cloudcoil==0.5.3"]`), lockWith("0.5.3"), []string{`clause "==0.5.3"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := CheckCloudcoilDependency([]byte(tt.pyproject), []byte(tt.lock))
			if len(ps) != len(tt.want) {
				t.Fatalf("problems %v, want %d", ps, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(ps[i].String(), w) {
					t.Errorf("problem %q lacks %q", ps[i], w)
				}
			}
		})
	}
}
