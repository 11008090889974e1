package forgeworkflows

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"dagger/shipyard/internal/testkit/ghworkflow"
)

// root is the repository, from this package's folder.
const root = "../.."

// The files a rule may read, and that a broken copy may change, by short name.
var files = map[string]string{
	"ci.yml":                ".github/workflows/ci.yml",
	"release.yml":           ".github/workflows/release.yml",
	"actionlint.yaml":       ".github/actionlint.yaml",
	"releasing-shipyard.md": "docs/releasing-shipyard.md",
}

// set is the files of one check: the repository's, or a broken copy of them.
type set struct {
	text    map[string]string // by short name
	ci      workflow
	release workflow
	// examplePins are the pins of examples/github-actions ("SHA # vX.Y.Z"), by action:
	// never broken.
	examplePins map[string][]string
	// goMinor is go.mod's Go, MAJOR.MINOR: never broken.
	goMinor string
}

// The workflows as the rules read them (internal/testkit/ghworkflow).
type (
	workflow = ghworkflow.Workflow
	job      = ghworkflow.Job
	step     = ghworkflow.Step
)

// pushes reports whether a job pushes to the repository.
func pushes(j job) bool {
	return slices.ContainsFunc(j.Steps, func(s step) bool { return len(commands(s.Run, "git push")) > 0 })
}

// commands returns each command of a script that starts with prefix (a word boundary after
// it), continuation lines joined.
func commands(script, prefix string) []string {
	joined := strings.ReplaceAll(script, "\\\n", " ")
	var found []string
	re := regexp.MustCompile(`(^|[\s;&|({])` + regexp.QuoteMeta(prefix) + `(\s|$)`)
	for _, line := range strings.Split(joined, "\n") {
		if loc := re.FindStringIndex(line); loc != nil {
			found = append(found, strings.TrimSpace(line[loc[0]:]))
		}
	}
	return found
}

// each calls f with every job of both workflows, named by file and id.
func (s set) each(f func(where string, id string, j job)) {
	for _, w := range []struct {
		file string
		wf   workflow
	}{{"ci.yml", s.ci}, {"release.yml", s.release}} {
		ids := make([]string, 0, len(w.wf.Jobs))
		for id := range w.wf.Jobs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			f(w.file+": job "+id, id, w.wf.Jobs[id])
		}
	}
}

// repository returns the repository's files, parsed.
func repository(t *testing.T) set {
	t.Helper()
	text := map[string]string{}
	for name, path := range files {
		b, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		text[name] = string(b)
	}
	s := set{text: text, examplePins: examplePins(t), goMinor: goMinor(t)}
	s.parse(t)
	return s
}

func (s *set) parse(t *testing.T) {
	t.Helper()
	for name, w := range map[string]*workflow{"ci.yml": &s.ci, "release.yml": &s.release} {
		*w = workflow{}
		if err := yaml.Unmarshal([]byte(s.text[name]), w); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// mutation is a broken copy: in file, the first old of each edit becomes its new.
type mutation struct {
	name  string
	file  string
	edits []edit
}

type edit struct{ old, new string }

// change is a mutation of one edit.
func change(name, file, old, new string) mutation {
	return mutation{name: name, file: file, edits: []edit{{old, new}}}
}

// broken returns a copy of s with m applied.
func (s set) broken(t *testing.T, m mutation) set {
	t.Helper()
	text, ok := s.text[m.file]
	if !ok {
		t.Fatalf("no file %q to break", m.file)
	}
	for _, e := range m.edits {
		if !strings.Contains(text, e.old) {
			t.Fatalf("%s no longer holds %q: update the broken copy to the file", m.file, e.old)
		}
		text = strings.Replace(text, e.old, e.new, 1)
	}
	b := set{text: map[string]string{}, examplePins: s.examplePins, goMinor: s.goMinor}
	for k, v := range s.text {
		b.text[k] = v
	}
	b.text[m.file] = text
	b.parse(t)
	return b
}

// holds checks that rule finds nothing wrong in the repository's files and something
// wrong in each broken copy.
func holds(t *testing.T, rule func(s set) []string, breaks []mutation) {
	t.Helper()
	s := repository(t)
	for _, v := range rule(s) {
		t.Error(v)
	}
	for _, m := range breaks {
		t.Run(m.name, func(t *testing.T) {
			if got := rule(s.broken(t, m)); len(got) == 0 {
				t.Errorf("the rule passes a broken copy of %s: %q", m.file, m.edits)
			} else {
				t.Logf("refused: %s", strings.Join(got, "; "))
			}
		})
	}
}

// examplePins returns the pins of each action the example workflows use.
func examplePins(t *testing.T) map[string][]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "examples", "github-actions", "*", "*.yml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example workflows (%v)", err)
	}
	pins := map[string][]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var w workflow
		if err := yaml.Unmarshal(b, &w); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, j := range w.Jobs {
			for _, st := range j.Steps {
				if action, sha, ok := strings.Cut(st.Uses, "@"); ok && !slices.Contains(pins[action], sha+" "+st.Pin) {
					pins[action] = append(pins[action], sha+" "+st.Pin)
				}
			}
		}
	}
	return pins
}

var goDirective = regexp.MustCompile(`(?m)^go (\d+\.\d+)(\.\d+)?$`)

func goMinor(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := goDirective.FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	return string(m[1])
}
