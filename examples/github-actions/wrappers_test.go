package githubactions

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"gopkg.in/yaml.v3"
)

// workflows returns every wrapper, by system folder.
func workflows(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("*", "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no workflow files under examples/github-actions/<system>/")
	}
	sort.Strings(files)
	return files
}

func TestWorkflowsPassActionlint(t *testing.T) {
	linter, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range workflows(t) {
		content, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		errs, err := linter.Lint(f, content, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, e := range errs {
			t.Errorf("%s:%d:%d: %s [%s]", f, e.Line, e.Column, e.Message, e.Kind)
		}
	}
}

// workflow is the part of a workflow file the policy reads.
type workflow struct {
	On          yaml.Node      `yaml:"on"`
	Permissions yaml.Node      `yaml:"permissions"`
	Concurrency yaml.Node      `yaml:"concurrency"`
	Jobs        map[string]job `yaml:"jobs"`
	Env         map[string]any `yaml:"env"`
	Extra       map[string]any `yaml:",inline"`
}

type job struct {
	Permissions yaml.Node         `yaml:"permissions"`
	Environment yaml.Node         `yaml:"environment"`
	Concurrency yaml.Node         `yaml:"concurrency"`
	Needs       yaml.Node         `yaml:"needs"`
	If          string            `yaml:"if"`
	Env         map[string]string `yaml:"env"`
	Steps       []step            `yaml:"steps"`
}

type step struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
	Env  map[string]string `yaml:"env"`
}

func readWorkflow(t *testing.T, path string) workflow {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return w
}

var pinnedUses = regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40}$`)

func engineVersion(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "dagger.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		EngineVersion string `json:"engineVersion"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(m.EngineVersion, "v")
}

// TestWorkflowPolicy checks what actionlint does not: minimal permissions on every job,
// actions pinned by commit, the Dagger CLI pinned to the module's engine version, and
// secrets reaching `dagger call` only as env://NAME (never interpolated into a script).
func TestWorkflowPolicy(t *testing.T) {
	want := engineVersion(t)
	secretInRun := regexp.MustCompile(`\$\{\{\s*secrets\.`)
	for _, f := range workflows(t) {
		w := readWorkflow(t, f)
		if w.Permissions.Kind == 0 {
			t.Errorf("%s: no top-level permissions (set `permissions: {}` and grant per job)", f)
		}
		for name, j := range w.Jobs {
			where := f + ": job " + name
			if j.Permissions.Kind == 0 {
				t.Errorf("%s: no permissions block", where)
			}
			usesDagger := false
			for _, s := range j.Steps {
				if s.Uses != "" && !strings.HasPrefix(s.Uses, "./") {
					if !pinnedUses.MatchString(s.Uses) {
						t.Errorf("%s: %q is not pinned by a commit SHA", where, s.Uses)
					}
					if strings.HasPrefix(s.Uses, "dagger/dagger-for-github@") {
						usesDagger = true
						if s.With["version"] != want {
							t.Errorf("%s: dagger-for-github version %q, want the module's engine %q", where, s.With["version"], want)
						}
					}
				}
				if secretInRun.MatchString(s.Run) {
					t.Errorf("%s: step %q interpolates a secret into its script; pass it in env and as env://NAME", where, s.Name)
				}
				if strings.Contains(s.Run, "dagger call") && !usesDagger {
					t.Errorf("%s: step %q calls dagger before installing the pinned CLI", where, s.Name)
				}
			}
		}
	}
}

// TestDaggerCallsMatchTheModule parses main.go and checks that every `dagger call` in a
// wrapper names a function the module declares, with flags it takes, and every required one.
func TestDaggerCallsMatchTheModule(t *testing.T) {
	s, err := readSurface(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, f := range workflows(t) {
		w := readWorkflow(t, f)
		for name, j := range w.Jobs {
			for i, st := range j.Steps {
				where := fmt.Sprintf("%s: job %s step %d", f, name, i+1)
				found, err := daggerCalls(where, st.Run)
				if err != nil {
					t.Fatal(err)
				}
				for _, words := range found {
					c, err := parseCall(where, words)
					if err != nil {
						t.Error(err)
						continue
					}
					calls++
					for _, p := range s.check(c) {
						t.Error(p)
					}
				}
			}
		}
	}
	if calls == 0 {
		t.Fatal("no dagger call found in any wrapper")
	}
}

func TestSurfaceChecker(t *testing.T) {
	s := surface{
		constructor: function{flags: map[string]bool{"source": false, "github-token": false}},
		functions: map[string]function{
			"release-plan":  {flags: map[string]bool{"tag": true, "format": false}},
			"with-sigstore": {flags: map[string]bool{"oidc-token": false}, returnsModule: true},
			"with-nothing":  {flags: map[string]bool{}},
		},
	}
	cases := []struct {
		line     string
		problems []string
	}{
		{"--github-token env://GITHUB_TOKEN release-plan --tag v0.11.0 --format=json", nil},
		{"release-plan --format json", []string{"needs --tag"}},
		{"release-plan --tag v1 --tga x", []string{"has no flag --tga"}},
		{"--token x release-plan --tag v1", []string{"constructor flag --token"}},
		{"relase-plan --tag v1", []string{`function "relase-plan" is not declared`}},
		{"release-plan --tag v1 export --path out", nil},
		{"with-sigstore --oidc-token env://T release-plan --tag v1", nil},
		{"with-sigstore --oidc-token env://T release-plan", []string{"release-plan needs --tag"}},
		{"with-sigstore --oidc-tokn x release-plan --tag v1", []string{"with-sigstore has no flag --oidc-tokn"}},
		{"with-nothing release-plan --tag v1", []string{"with-nothing does not return the module"}},
	}
	for _, c := range cases {
		call, err := parseCall("t", shellWords(c.line))
		if err != nil {
			t.Fatal(err)
		}
		got := s.check(call)
		if len(got) != len(c.problems) {
			t.Errorf("%q: problems %v, want %v", c.line, got, c.problems)
			continue
		}
		for i, p := range c.problems {
			if !strings.Contains(got[i], p) {
				t.Errorf("%q: problem %q, want containing %q", c.line, got[i], p)
			}
		}
	}
	words, _ := daggerCalls("t", "set -e\ndagger --progress=plain call \\\n  --source=. lint | tee out.txt\necho done && dagger call ci --pr-title \"fix: a b\"")
	if len(words) != 2 || strings.Join(words[0], " ") != "--source=. lint" || strings.Join(words[1], " ") != "ci --pr-title fix: a b" {
		t.Fatalf("daggerCalls = %q", words)
	}
	for in, want := range map[string]string{"ReleasePlan": "release-plan", "githubApi": "github-api", "PrTitle": "pr-title", "Ci": "ci", "ScanPublished": "scan-published"} {
		if got := kebab(in); got != want {
			t.Errorf("kebab(%q) = %q, want %q", in, got, want)
		}
	}
}
