// Package ghworkflow reads GitHub Actions workflow files for the tests that hold Shipyard's
// own workflows (.github/workflows) and its example wrappers (examples/github-actions) to
// their rules: the workflow, its jobs and steps, as GitHub reads them, with each `uses`
// line's comment (the version a pinned commit is).
package ghworkflow

import (
	"fmt"
	"os"

	"gopkg.in/yaml.v3"
)

// Workflow is the part of a workflow file the rules read.
type Workflow struct {
	Name        string         `yaml:"name"`
	On          yaml.Node      `yaml:"on"`
	Permissions yaml.Node      `yaml:"permissions"`
	Concurrency Concurrency    `yaml:"concurrency"`
	Env         map[string]any `yaml:"env"`
	Jobs        map[string]Job `yaml:"jobs"`
}

// Job is one job of a workflow.
type Job struct {
	Name        string            `yaml:"name"`
	If          string            `yaml:"if"`
	RunsOn      yaml.Node         `yaml:"runs-on"`
	Needs       Needs             `yaml:"needs"`
	Permissions yaml.Node         `yaml:"permissions"`
	Environment yaml.Node         `yaml:"environment"`
	Concurrency Concurrency       `yaml:"concurrency"`
	Env         map[string]string `yaml:"env"`
	Steps       []Step            `yaml:"steps"`
}

// Step is one step of a job; Pin is the comment on its uses line.
type Step struct {
	ID   string            `yaml:"id"`
	Name string            `yaml:"name"`
	If   string            `yaml:"if"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
	Env  map[string]string `yaml:"env"`
	Pin  string            `yaml:"-"`
}

// UnmarshalYAML reads the step and its uses line's comment.
func (s *Step) UnmarshalYAML(n *yaml.Node) error {
	type plain Step
	if err := n.Decode((*plain)(s)); err != nil {
		return err
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "uses" {
			s.Pin = n.Content[i+1].LineComment
		}
	}
	return nil
}

// Needs are the jobs a job waits for: one name or a list.
type Needs []string

// UnmarshalYAML reads a name or a list of names.
func (n *Needs) UnmarshalYAML(v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode {
		*n = Needs{v.Value}
		return nil
	}
	var list []string
	if err := v.Decode(&list); err != nil {
		return err
	}
	*n = list
	return nil
}

// Concurrency is a workflow's or job's concurrency: a bare group, or a mapping with
// cancel-in-progress as written (true, false or an expression).
type Concurrency struct {
	Group            string `yaml:"group"`
	CancelInProgress string `yaml:"cancel-in-progress"`
}

// UnmarshalYAML reads a bare group or a mapping.
func (c *Concurrency) UnmarshalYAML(v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode {
		*c = Concurrency{Group: v.Value}
		return nil
	}
	type plain Concurrency
	return v.Decode((*plain)(c))
}

// Cancels says whether a new run may cancel one in progress: cancel-in-progress set to
// anything but false (an expression may be true).
func (c Concurrency) Cancels() bool {
	return c.CancelInProgress != "" && c.CancelInProgress != "false"
}

// Grants are permissions as scope → access; ok is false when they are not a mapping
// (absent, or read-all/write-all).
func Grants(n yaml.Node) (map[string]string, bool) {
	if n.Kind != yaml.MappingNode {
		return nil, false
	}
	g := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		g[n.Content[i].Value] = n.Content[i+1].Value
	}
	return g, true
}

// Read reads the workflow file at path.
func Read(path string) (Workflow, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Workflow{}, err
	}
	return Parse(path, b)
}

// Parse reads a workflow's text; name is its file, for errors.
func Parse(name string, b []byte) (Workflow, error) {
	var w Workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		return Workflow{}, fmt.Errorf("%s: %w", name, err)
	}
	return w, nil
}
