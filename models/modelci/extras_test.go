package modelci

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/pypisim"
)

const cloudcoilPyproject = `[project]
name = "cloudcoil"
version = "0.5.3"
dependencies = ["httpx>=0.27"]

[project.optional-dependencies]
codegen = ["datamodel-code-generator>=0.26"]
kubernetes = ["cloudcoil.models.kubernetes>=1.31"]
kyverno = ["Cloudcoil_Models_Kyverno"]
all-models = [
    "cloudcoil.models.kubernetes>=1.31",
    "cloudcoil-models-kyverno",
]
`

func TestModelExtras(t *testing.T) {
	extras, err := ModelExtras([]byte(cloudcoilPyproject))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range extras {
		got = append(got, fmt.Sprintf("%s:%s:%d", e.Extra, e.Project, e.Line))
	}
	want := []string{
		"all-models:cloudcoil-models-kubernetes:10",
		"all-models:cloudcoil-models-kyverno:10",
		"kubernetes:cloudcoil-models-kubernetes:8",
		"kyverno:cloudcoil-models-kyverno:9",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("extras\n%v\nwant\n%v", got, want)
	}
	if extras, err := ModelExtras([]byte("[project]\nname = \"x\"\n")); err != nil || extras != nil {
		t.Errorf("no extras: %v, %v", extras, err)
	}
	if _, err := ModelExtras([]byte("[project.optional-dependencies]\nbad = [\" >=1\"]\n")); err == nil || !strings.Contains(err.Error(), "pyproject.toml:2") {
		t.Errorf("a requirement without a name: %v", err)
	}
}

func TestCheckCoreExtras(t *testing.T) {
	extras, err := ModelExtras([]byte(cloudcoilPyproject))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		published map[string]bool
		want      []string // problem paths, in order
	}{
		{"every model distribution is on PyPI", map[string]bool{"cloudcoil-models-kubernetes": true, "cloudcoil-models-kyverno": true}, nil},
		{"kyverno is not", map[string]bool{"cloudcoil-models-kubernetes": true, "cloudcoil-models-kyverno": false}, []string{"pyproject.toml:10", "pyproject.toml:9"}},
		{"nothing known", nil, []string{"pyproject.toml:10", "pyproject.toml:10", "pyproject.toml:8", "pyproject.toml:9"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			problems := CheckCoreExtras(extras, tc.published)
			if len(problems) != len(tc.want) {
				t.Fatalf("problems %v, want at %v", problems, tc.want)
			}
			for i, p := range problems {
				if p.Path != tc.want[i] || !strings.Contains(p.Message, "is not on PyPI") || !strings.Contains(p.Message, "before adding the extra") {
					t.Errorf("problem %d: %v", i, p)
				}
			}
		})
	}
}

func TestCoreExtrasOnPyPI(t *testing.T) {
	pypi := pypisim.New(t)
	pypi.AddRelease("cloudcoil.models.kubernetes", "1.31.5.0")
	_, problems, err := CoreExtrasOnPyPI(context.Background(), pypi.Client(), pypi.URL(), []byte(cloudcoilPyproject))
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 2 || !strings.Contains(problems[0].Message, `"cloudcoil-models-kyverno"`) || !strings.Contains(problems[1].Message, "extra \"kyverno\"") {
		t.Errorf("problems %v", problems)
	}
	// One request per distinct distribution, however many extras name it.
	if n := len(pypi.Requests()); n != 2 {
		t.Errorf("%d PyPI requests, want 2", n)
	}
	pypi.FailNext(503)
	if _, _, err := CoreExtrasOnPyPI(context.Background(), pypi.Client(), pypi.URL(), []byte(cloudcoilPyproject)); err == nil {
		t.Error("a PyPI failure passed the check")
	}
}

func FuzzModelExtras(f *testing.F) {
	f.Add([]byte(cloudcoilPyproject))
	f.Add([]byte("[project.optional-dependencies]\nx = 1\n"))
	f.Add([]byte("[project]\noptional-dependencies = \"x\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		extras, err := ModelExtras(data)
		if err != nil {
			return
		}
		for _, e := range extras {
			if !strings.HasPrefix(e.Project, modelDistributionPrefix) || e.Extra == "" {
				t.Errorf("extra %+v", e)
			}
		}
		_ = CheckCoreExtras(extras, nil)
	})
}
