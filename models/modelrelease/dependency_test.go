package modelrelease

import (
	"strconv"
	"strings"
	"testing"

	"dagger/shipyard/internal/version"
	"dagger/shipyard/models/modeltest"
)

func TestCheckCloudcoilDependency(t *testing.T) {
	project := func(deps string) string {
		return "[project]\nname = \"cloudcoil.models.keda\"\nversion = \"2.16.1.0\"\ndependencies = " + deps + "\n\n[tool.x]\ndependencies = [\"cloudcoil\"]\n"
	}
	tests := []struct {
		name, pyproject, lock string
		want                  []string // problem substrings; none means it passes
	}{
		{"range within the minor", project(`["cloudcoil>=0.5.3,<0.6"]`), modeltest.LockWith("0.5.4"), nil},
		{"compatible release operator", project(`["cloudcoil~=0.5.3"]`), modeltest.LockWith("0.5.3"), nil},
		{"extras and a multi-line array", project("[\n    \"pydantic>=2\",  # models\n    \"Cloudcoil[codegen] >=0.5.3, <0.6.0\",\n]"), modeltest.LockWith("0.5.9"), nil},
		{"real template's unbounded lower bound, locked in its minor", project("[\n    \"cloudcoil>=0.4.0\",\n]"), modeltest.LockWith("0.4.5"), nil},
		{"unbounded lower bound, locked at the bound", project(`["cloudcoil>=0.4.0"]`), modeltest.LockWith("0.4.0"), nil},
		{"unbounded lower bound of two components", project(`["cloudcoil>=0.4"]`), modeltest.LockWith("0.4.9"), nil},
		{"unbounded lower bound, locked at the next minor", project(`["cloudcoil>=0.4.0"]`), modeltest.LockWith("0.5.0"),
			[]string{`uv.lock: cloudcoil 0.5.0 is outside Cloudcoil 0.4, the minor of the requirement ">=0.4.0" in pyproject.toml; lock a 0.4 release (uv lock --upgrade-package cloudcoil==0.4.Z) or migrate to 0.5 by raising the lower bound in pyproject.toml to >=0.5.0`}},
		{"unbounded lower bound, locked below it", project(`["cloudcoil>=0.4.2"]`), modeltest.LockWith("0.4.1"), []string{`uv.lock: cloudcoil 0.4.1 is below the requirement ">=0.4.2" in pyproject.toml; run uv lock --upgrade-package cloudcoil`}},
		{"unbounded lower bound, locked pre-release", project(`["cloudcoil>=0.4.0"]`), modeltest.LockWith("0.4.6rc1"), []string{"not a final release"}},
		{"no lower bound", project(`["cloudcoil<0.5"]`), modeltest.LockWith("0.4.5"),
			[]string{`pyproject.toml: cloudcoil requirement "<0.5": no lower bound, so nothing fixes the Cloudcoil minor the models are generated with; require cloudcoil>=X.Y.Z (or >=X.Y.Z,<X.(Y+1)) in [project] dependencies`}},
		{"two lower bounds", project(`["cloudcoil>=0.4.0,>=0.4.2"]`), modeltest.LockWith("0.4.5"), []string{"one lower bound"}},
		{"upper bound two minors away", project(`["cloudcoil>=0.5.3,<0.7"]`), modeltest.LockWith("0.6.1"), []string{"not the next minor 0.6"}},
		{"required twice", project(`["cloudcoil>=0.5.3,<0.6", "cloudcoil[codegen]"]`), modeltest.LockWith("0.5.4"), []string{"found 2"}},
		{"not required", project(`["pydantic>=2"]`), modeltest.LockWith("0.5.4"), []string{"found 0"}},
		{"locked below the range", project(`["cloudcoil>=0.5.3,<0.6"]`), modeltest.LockWith("0.5.1"), []string{"outside the required range"}},
		{"locked at the next minor", project(`["cloudcoil>=0.5.3,<0.6"]`), modeltest.LockWith("0.6.0"), []string{"outside the required range"}},
		{"locked pre-release", project(`["cloudcoil>=0.5.3,<0.6"]`), modeltest.LockWith("0.5.6rc1"), []string{"not a final release"}},
		{"not locked", project(`["cloudcoil>=0.5.3,<0.6"]`), "version = 1\n", []string{"found 0"}},
		{"pinned exactly", project(`["cloudcoil==0.5.3"]`), modeltest.LockWith("0.5.3"), []string{`clause "==0.5.3"`}},
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

// Whatever the requirement and the lock say, the check never panics, and what it accepts
// locks a final release at or above the lower bound, inside the lower bound's minor.
func FuzzCheckCloudcoilDependency(f *testing.F) {
	for _, seed := range [][2]string{
		{">=0.4.0", "0.4.5"}, {">=0.4.0", "0.5.0"}, {">=0.5.3,<0.6", "0.5.4"}, {"~=0.5.3", "0.5.3"},
		{"<0.5", "0.4.5"}, {">=0.4", "1"}, {">=1.2.3.4,<1.3", "1.2.9"}, {"==0.5.3", "0.5.3"}, {">=,<", ""},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, spec, locked string) {
		pyproject := "[project]\nname = \"m\"\nversion = \"1\"\ndependencies = [" + strconv.Quote("cloudcoil"+spec) + "]\n"
		if len(CheckCloudcoilDependency([]byte(pyproject), []byte(modeltest.LockWith(locked)))) > 0 {
			return
		}
		low, _, _, err := minorRange(strings.TrimSpace(spec))
		if err != nil {
			t.Fatalf("accepted %q, whose range does not parse: %v", spec, err)
		}
		v, err := version.ParseRelease(locked)
		if err != nil || v.Compare(low) < 0 || v[0] != low[0] || minorOf(v) != low[1] {
			t.Fatalf("accepted cloudcoil%s locked at %q (%v)", spec, locked, err)
		}
	})
}
