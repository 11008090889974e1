package githubactions

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"dagger/shipyard/internal/modsurface"
	"dagger/shipyard/internal/testkit/cookiecutter"
	"dagger/shipyard/internal/testkit/engine"
)

// envOf is "the workflow's env" of messages: the variables of a step, set by the
// workflow's, the job's and the step's env:.
const envOf = "the workflow's env"

// templateContext renders the template patch's workflows: only the matrix and one env value
// come from cookiecutter.yaml, and no dagger call reads them.
var templateContext = map[string]string{"versions": `"1.31.5"`, "version_replacement_sed": "v"}

var (
	// assigned finds the variables a run: script sets itself (X=…, export X=…, for X in).
	assigned = regexp.MustCompile(`(?:^|[\s;&|(])(?:(?:export|local|readonly|declare)\s+(?:-\w+\s+)?)?([A-Za-z_]\w*)=|\bfor\s+([A-Za-z_]\w*)\s+in\b`)
	// runnerVars are the variables the runner sets in every step (GITHUB_SHA, RUNNER_TEMP …).
	runnerVars = regexp.MustCompile(`\$\{?((?:GITHUB|RUNNER)_\w+)`)
)

// envVars reads an env: mapping (the workflow's, a job's or a step's). A value holding a
// GitHub expression (${{ inputs.dry_run || false }}) is set but known only when the
// workflow runs; null is "".
func envVars(n *yaml.Node) (map[string]modsurface.Var, error) {
	out := map[string]modsurface.Var{}
	if n == nil {
		return out, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: env is not a mapping, so its variables cannot be read", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case v.Kind != yaml.ScalarNode:
			return nil, fmt.Errorf("line %d: env %s is not a scalar", v.Line, k.Value)
		case strings.Contains(v.Value, "${{"):
			out[k.Value] = modsurface.Var{Unknown: true}
		case v.Tag == "!!null":
			out[k.Value] = modsurface.Var{}
		default:
			out[k.Value] = modsurface.Var{Value: v.Value}
		}
	}
	return out, nil
}

// field is the value of key in a mapping node, nil when absent.
func field(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// stepCommands are the dagger commands of one step's run:, with the environment they run in.
type stepCommands struct {
	env  modsurface.Env
	cmds []modsurface.Command
}

// workflowSteps reads each step of a workflow (a template patch's workflow rendered first)
// with the env in scope for it: the workflow's, the job's, then the step's, each over the
// one before, as GitHub sets them; and the variables its script sets and the runner's.
func workflowSteps(path string, content []byte) ([]stepCommands, error) {
	text := string(content)
	if strings.Contains(text, "{%") {
		rendered, err := cookiecutter.Render(text, templateContext)
		if err != nil {
			return nil, fmt.Errorf("%s: rendering: %w", path, err)
		}
		text = rendered
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	root := doc.Content[0]
	workflowEnv, err := envVars(field(root, "env"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []stepCommands
	jobs := field(root, "jobs")
	if jobs == nil {
		return nil, fmt.Errorf("%s: no jobs", path)
	}
	for j := 1; j < len(jobs.Content); j += 2 {
		job := jobs.Content[j]
		jobEnv, err := envVars(field(job, "env"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		steps := field(job, "steps")
		if steps == nil {
			continue
		}
		for _, step := range steps.Content {
			run := field(step, "run")
			if run == nil {
				continue
			}
			env, err := envVars(field(step, "env"))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			vars := maps.Clone(workflowEnv)
			maps.Copy(vars, jobEnv)
			maps.Copy(vars, env)
			vars["CI"] = modsurface.Var{Value: "true"}
			for _, m := range runnerVars.FindAllStringSubmatch(run.Value, -1) {
				vars[m[1]] = modsurface.Var{Unknown: true}
			}
			for _, m := range assigned.FindAllStringSubmatch(run.Value, -1) {
				vars[m[1]+m[2]] = modsurface.Var{Unknown: true}
			}
			// A literal block's text starts on the line after `run: |`; a folded one's
			// lines are joined, so its commands could not be placed.
			first := run.Line
			switch {
			case run.Style&yaml.LiteralStyle != 0:
				first++
			case run.Style&yaml.FoldedStyle != 0:
				return nil, fmt.Errorf("%s:%d: a folded run: (>) hides its lines; use |", path, run.Line)
			}
			out = append(out, stepCommands{
				env:  modsurface.Env{Of: envOf, Vars: vars},
				cmds: modsurface.ScriptCommands(path, first, run.Value),
			})
		}
	}
	// Every command of the file as the other tests read it (the whole file as a script)
	// is one of a step, at the same line: none is read without its env.
	var inSteps, inFile []string
	for _, s := range out {
		for _, c := range s.cmds {
			inSteps = append(inSteps, c.Where+" "+c.Text)
		}
	}
	for _, c := range modsurface.ScriptCommands(path, 1, string(content)) {
		inFile = append(inFile, c.Where+" "+c.Text)
	}
	if !slices.Equal(inSteps, inFile) {
		return nil, fmt.Errorf("%s: the steps' commands\n%s\nare not the file's\n%s", path, strings.Join(inSteps, "\n"), strings.Join(inFile, "\n"))
	}
	return out, nil
}

// booleanProblems reads every dagger call of a workflow with its step's env expanded
// (modsurface.Env.Expand) against the module's types: a Boolean flag's value must be one
// the CLI parses once the shell has replaced its variables.
func booleanProblems(path string, content []byte, types modsurface.Types, constructor modsurface.Function) (problems []string, calls int, err error) {
	steps, err := workflowSteps(path, content)
	if err != nil {
		return nil, 0, err
	}
	for _, s := range steps {
		for _, c := range s.cmds {
			if c.Verb != "call" {
				continue
			}
			calls++
			_, p := modsurface.Read(s.env.Expand(c), types, "Shipyard", constructor, []string{"shipyard"})
			problems = append(problems, p...)
		}
	}
	return problems, calls, nil
}

// moduleTypes is the module as its source is, with the engine's core types calls chain on.
func moduleTypes(t *testing.T) (modsurface.Types, modsurface.Surface) {
	t.Helper()
	s, err := modsurface.FromSource(filepath.Join("..", ".."), "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	core, err := engine.CoreTypes()
	if err != nil {
		t.Fatal(err)
	}
	return core.With("Shipyard", s), s
}

// TestBooleanFlagValuesParseWithTheWorkflowsEnv checks every dagger call of the wrappers and
// of the template patch's workflows as its step runs it: a Boolean flag given a value with
// "=" from a variable (--fail="$FAIL") gets what the env in scope sets, and the CLI refuses
// to start on a value strconv.ParseBool refuses, "" from a variable not set among them.
func TestBooleanFlagValuesParseWithTheWorkflowsEnv(t *testing.T) {
	types, s := moduleTypes(t)
	template, err := filepath.Glob(filepath.Join("..", "..", "models", "genrepo", "template", "*.yml"))
	if err != nil || len(template) == 0 {
		t.Fatalf("no template workflows (%v)", err)
	}
	calls := 0
	for _, f := range append(workflows(t), template...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		problems, n, err := booleanProblems(f, b, types, s.Constructor)
		if err != nil {
			t.Fatal(err)
		}
		calls += n
		for _, p := range problems {
			t.Error(p)
		}
	}
	if calls < 20 {
		t.Fatalf("read %d dagger calls in the workflows; the reader misses some", calls)
	}
}

// scan.yml's call takes --fail="$FAIL", which its env sets: a copy that drops or spoils the
// line fails, naming the call's line, the flag and the variable.
func TestBooleanFlagValuesOfScanYml(t *testing.T) {
	types, s := moduleTypes(t)
	path := filepath.Join("tesk-core", "scan.yml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	scan := string(b)
	const failLine = "  FAIL: \"false\"\n"
	const step = "      - name: Trivy on the latest images\n"
	const run = "        run: |\n          dagger call"
	const job = "    runs-on: ubuntu-latest\n"
	tests := []struct {
		name  string
		edits [][2]string // each replaces its first with its second, once
		want  []string    // what the one problem says; none when nil
	}{
		{"as it is", nil, nil},
		{"FAIL dropped", [][2]string{{failLine, ""}},
			[]string{`--fail="$FAIL" gives --fail=: FAIL is not set in the workflow's env`, `invalid argument "" for "--fail" flag`,
				"set FAIL in the workflow's env so that --fail is true or false"}},
		{"FAIL empty", [][2]string{{failLine, "  FAIL: \"\"\n"}},
			[]string{`--fail="$FAIL" gives --fail= from the workflow's env`, `invalid argument "" for "--fail" flag`}},
		{"FAIL null", [][2]string{{failLine, "  FAIL:\n"}},
			[]string{`--fail="$FAIL" gives --fail= from the workflow's env`}},
		{"FAIL a word ParseBool refuses", [][2]string{{failLine, "  FAIL: \"yes\"\n"}},
			[]string{`--fail="$FAIL" gives --fail=yes from the workflow's env`, `invalid argument "yes" for "--fail" flag`}},
		{"FAIL a YAML Boolean", [][2]string{{failLine, "  FAIL: true\n"}}, nil},
		{"FAIL 0", [][2]string{{failLine, "  FAIL: 0\n"}}, nil},
		{"FAIL from the repository's variables", [][2]string{{failLine, "  FAIL: ${{ vars.SCAN_FAIL }}\n"}}, nil},
		{"FAIL from a dispatch input", [][2]string{{failLine, "  FAIL: ${{ inputs.fail || false }}\n"}}, nil},
		{"the step's env wins", [][2]string{{step, step + "        env:\n          FAIL: \"nope\"\n"}},
			[]string{`--fail="$FAIL" gives --fail=nope from the workflow's env`}},
		{"the job's env sets it", [][2]string{{failLine, ""}, {job, job + "    env:\n      FAIL: \"true\"\n"}}, nil},
		{"the script sets it", [][2]string{{failLine, ""}, {run, "        run: |\n          FAIL=true\n          dagger call"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			content := scan
			for _, e := range tt.edits {
				if !strings.Contains(content, e[0]) {
					t.Fatalf("scan.yml has no %q to edit", e[0])
				}
				content = strings.Replace(content, e[0], e[1], 1)
			}
			problems, calls, err := booleanProblems(path, []byte(content), types, s.Constructor)
			if err != nil {
				t.Fatal(err)
			}
			if calls != 1 {
				t.Fatalf("%d calls in scan.yml, want its one", calls)
			}
			if tt.want == nil {
				for _, p := range problems {
					t.Errorf("unexpected problem: %s", p)
				}
				return
			}
			if len(problems) != 1 {
				t.Fatalf("problems %q, want one", problems)
			}
			at := strings.Index(content, "dagger call")
			where := fmt.Sprintf("%s:%d: ", path, strings.Count(content[:at], "\n")+1)
			if !strings.HasPrefix(problems[0], where) {
				t.Errorf("problem %q does not start with the call's place %q", problems[0], where)
			}
			for _, w := range tt.want {
				if !strings.Contains(problems[0], w) {
					t.Errorf("problem %q does not say %q", problems[0], w)
				}
			}
		})
	}
}
