package doctor

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// workflow is the part of a GitHub Actions workflow the checks read, with lines.
type workflow struct {
	Env         map[string]string `yaml:"env"`
	Permissions yaml.Node         `yaml:"permissions"`
	Jobs        map[string]*job   `yaml:"jobs"`
}

type job struct {
	Env         map[string]string `yaml:"env"`
	Permissions yaml.Node         `yaml:"permissions"`
	Steps       []step            `yaml:"steps"`
	// Environment is the job's deployment environment: a name, or {name: …, url: …}.
	Environment yaml.Node `yaml:"environment"`
	line        int
}

// environment is the name of the job's deployment environment ("" when it has none).
func (j *job) environment() string {
	switch j.Environment.Kind {
	case yaml.ScalarNode:
		return j.Environment.Value
	case yaml.MappingNode:
		var e struct {
			Name string `yaml:"name"`
		}
		if err := j.Environment.Decode(&e); err == nil {
			return e.Name
		}
	}
	return ""
}

type step struct {
	Uses string            `yaml:"uses"`
	Run  yaml.Node         `yaml:"run"`
	With map[string]string `yaml:"with"`
	Env  map[string]string `yaml:"env"`
}

// parseWorkflow reads a workflow file; errors name the file and line.
func parseWorkflow(path string, data []byte) (*workflow, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var w workflow
	if err := root.Decode(&w); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Job lines, for messages: the key of each job under "jobs".
	if len(root.Content) == 1 && root.Content[0].Kind == yaml.MappingNode {
		top := root.Content[0].Content
		for i := 0; i+1 < len(top); i += 2 {
			if top[i].Value != "jobs" || top[i+1].Kind != yaml.MappingNode {
				continue
			}
			jobs := top[i+1].Content
			for k := 0; k+1 < len(jobs); k += 2 {
				if j := w.Jobs[jobs[k].Value]; j != nil {
					j.line = jobs[k].Line
				}
			}
		}
	}
	return &w, nil
}

// jobNames returns the workflow's job ids in a stable order.
func (w *workflow) jobNames() []string {
	names := make([]string, 0, len(w.Jobs))
	for n := range w.Jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// grantsIDToken reports whether a permissions node grants id-token: write (write-all
// grants every permission). defined is false when the node is absent, so the job
// inherits the workflow's permissions.
func grantsIDToken(n yaml.Node) (grants, defined bool) {
	switch n.Kind {
	case 0:
		return false, false
	case yaml.ScalarNode:
		return n.Value == "write-all", n.Tag != "!!null"
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "id-token" && n.Content[i+1].Value == "write" {
				return true, true
			}
		}
		return false, true
	}
	return false, true
}

// pinnedModule is a Dagger module address pinned to a full commit SHA.
var pinnedModule = regexp.MustCompile(`^[^@\s]+@[0-9a-f]{40}$`)

// envRef is a shell reference to a variable: $NAME or ${NAME}.
var envRef = regexp.MustCompile(`^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$`)

// moduleRef is one module a workflow calls Dagger with.
type moduleRef struct {
	File, Job string
	Line      int
	// Written is how the workflow writes it; Address is what it resolves to in the file
	// ("" when it comes from outside the file).
	Written, Address string
}

// moduleRefs returns every module the workflow names to Dagger: the values of -m/--mod in
// run scripts and the module input of dagger/dagger-for-github, with $VARS resolved from
// the step's, job's and workflow's env. Local modules (paths) are left out: they are
// part of the repository.
func moduleRefs(file string, w *workflow) []moduleRef {
	var refs []moduleRef
	for _, name := range w.jobNames() {
		j := w.Jobs[name]
		if j == nil {
			continue
		}
		for _, s := range j.Steps {
			resolve := func(v string) string {
				if strings.Contains(v, "${{") {
					return ""
				}
				m := envRef.FindStringSubmatch(v)
				if m == nil {
					return v
				}
				key := m[1] + m[2]
				for _, env := range []map[string]string{s.Env, j.Env, w.Env} {
					if val, ok := env[key]; ok {
						if strings.Contains(val, "${{") || strings.Contains(val, "$") {
							return ""
						}
						return val
					}
				}
				return ""
			}
			add := func(line int, written string) {
				if strings.HasPrefix(written, ".") || strings.HasPrefix(written, "/") {
					return
				}
				addr := resolve(written)
				if strings.HasPrefix(addr, ".") || strings.HasPrefix(addr, "/") {
					return
				}
				refs = append(refs, moduleRef{File: file, Job: name, Line: line, Written: written, Address: addr})
			}
			if strings.HasPrefix(s.Uses, "dagger/dagger-for-github@") {
				if m, ok := s.With["module"]; ok && m != "" {
					add(j.line, m)
				}
			}
			for i, line := range strings.Split(s.Run.Value, "\n") {
				for _, arg := range moduleArgs(line) {
					add(s.Run.Line+i+blockOffset(s.Run), arg)
				}
			}
		}
	}
	return refs
}

// blockOffset is 1 for a block scalar (run: |), whose text starts on the next line.
func blockOffset(n yaml.Node) int {
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return 1
	}
	return 0
}

// moduleArgs returns the values given to dagger's -m/--mod on one line of a script, with
// shell quotes removed.
func moduleArgs(line string) []string {
	if !strings.Contains(line, "dagger") {
		return nil
	}
	fields := strings.Fields(line)
	var out []string
	for i, f := range fields {
		var v string
		switch {
		case f == "-m" || f == "--mod":
			if i+1 < len(fields) {
				v = fields[i+1]
			}
		case strings.HasPrefix(f, "-m="):
			v = strings.TrimPrefix(f, "-m=")
		case strings.HasPrefix(f, "--mod="):
			v = strings.TrimPrefix(f, "--mod=")
		default:
			continue
		}
		v = strings.Trim(v, `"'`)
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}
