package githubactions

import (
	"os"
	"testing"

	"gopkg.in/yaml.v3"

	"dagger/shipyard/internal/testkit/ghworkflow"
)

// rawWorkflow is the part of a workflow the tesk-core tests read beyond workflow: triggers
// with their filters, job names, needs and matrices.
type rawWorkflow struct {
	On   map[string]trigger `yaml:"on"`
	Jobs map[string]rawJob  `yaml:"jobs"`
}

type trigger struct {
	Branches []string `yaml:"branches"`
	Types    []string `yaml:"types"`
}

type rawJob struct {
	Name     string   `yaml:"name"`
	Needs    needs    `yaml:"needs"`
	Strategy strategy `yaml:"strategy"`
	Steps    []struct {
		Uses string `yaml:"uses"`
		If   string `yaml:"if"`
	} `yaml:"steps"`
}

// needs is a job's needs, a name or a list of names.
type needs = ghworkflow.Needs

// strategy keeps a matrix's static lists, and each dimension as written (an expression).
type strategy struct {
	Matrix    map[string][]string
	MatrixRaw map[string]string
}

func (s *strategy) UnmarshalYAML(v *yaml.Node) error {
	var st struct {
		Matrix map[string]yaml.Node `yaml:"matrix"`
	}
	if err := v.Decode(&st); err != nil {
		return err
	}
	s.Matrix, s.MatrixRaw = map[string][]string{}, map[string]string{}
	for k, n := range st.Matrix {
		if n.Kind == yaml.ScalarNode {
			s.MatrixRaw[k] = n.Value
			continue
		}
		var list []string
		if err := n.Decode(&list); err == nil {
			s.Matrix[k] = list
		}
	}
	return nil
}

func readRaw(t *testing.T, path string) rawWorkflow {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w rawWorkflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return w
}

// stepIf is the condition of the first step of a job that uses an action.
func (w rawWorkflow) stepIf(t *testing.T, job, uses string) string {
	t.Helper()
	for _, s := range w.Jobs[job].Steps {
		if s.Uses == uses {
			return s.If
		}
	}
	t.Fatalf("job %s has no step using %s", job, uses)
	return ""
}
