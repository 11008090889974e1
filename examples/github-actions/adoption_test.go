package githubactions

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
	"gopkg.in/yaml.v3"
)

// copyTo is how a wrapper for the Cloudcoil repository names the file it becomes there.
var copyTo = regexp.MustCompile(`Copy to (\.github/workflows/\S+\.yml) in the Cloudcoil repository`)

// adoptedCloudcoilWorkflows returns the workflows of the real Cloudcoil repository's
// .github/workflows once each Cloudcoil wrapper is copied where its header says: by file
// name, the real files with the wrappers over them.
func adoptedCloudcoilWorkflows(t *testing.T) map[string]workflow {
	t.Helper()
	real := filepath.Join(corpus.Dir(t, "cloudcoil"), "tree", ".github", "workflows")
	files, err := filepath.Glob(filepath.Join(real, "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflows in %s: %v", real, err)
	}
	adopted := map[string]workflow{}
	for _, f := range files {
		adopted[filepath.Base(f)] = readWorkflow(t, f)
	}
	wrappers, err := filepath.Glob(filepath.Join("cloudcoil", "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	copied := 0
	for _, f := range wrappers {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := copyTo.FindSubmatch(b)
		if m == nil {
			continue // a model repository's workflow, rendered by the template patch
		}
		adopted[filepath.Base(string(m[1]))] = readWorkflow(t, f)
		copied++
	}
	if copied == 0 {
		t.Fatal("no wrapper says where it goes in the Cloudcoil repository")
	}
	return adopted
}

// dispatchTypes returns the repository_dispatch event types a workflow runs on.
func dispatchTypes(t *testing.T, name string, w workflow) []string {
	t.Helper()
	var on struct {
		RepositoryDispatch *struct {
			Types []string `yaml:"types"`
		} `yaml:"repository_dispatch"`
	}
	if w.On.Kind != yaml.MappingNode {
		return nil // a list or a single event: no types to read
	}
	if err := w.On.Decode(&on); err != nil {
		t.Fatalf("%s: on: %v", name, err)
	}
	if on.RepositoryDispatch == nil {
		return nil
	}
	return on.RepositoryDispatch.Types
}

// Adopting Shipyard in the real Cloudcoil repository leaves one workflow that updates the
// model repositories, and it still answers the dispatch that core's PyPI workflow sends
// after a release (so a new Cloudcoil reaches the model repositories). The real Update
// Versions workflow must go: its `ls models` takes upstreams.json for an integration
// (`make publish-all-repos` fails on gen-repo-upstreams.json), and it would push each
// models-<name> main beside Shipyard's update-repos.
func TestAdoptionReplacesCloudcoilsUpdateVersions(t *testing.T) {
	adopted := adoptedCloudcoilWorkflows(t)
	names := make([]string, 0, len(adopted))
	for name := range adopted {
		names = append(names, name)
	}
	sort.Strings(names)

	var updaters []string
	received := map[string][]string{} // event type: the workflows that run on it
	type sent struct{ by, event string }
	var sends []sent
	for _, name := range names {
		w := adopted[name]
		for _, typ := range dispatchTypes(t, name, w) {
			received[typ] = append(received[typ], name)
		}
		updates := false
		for jobName, j := range w.Jobs {
			for _, s := range j.Steps {
				if strings.Contains(s.Run, "publish-all-repos") {
					t.Errorf("%s: job %s still runs `make publish-all-repos`, which fails once models/upstreams.json exists and pushes the model repositories beside update-repos; the wrapper update_repos.yml replaces it", name, jobName)
				}
				if strings.Contains(s.Run, "dagger call") && regexp.MustCompile(`\bupdate-repos\b`).MatchString(s.Run) {
					updates = true
				}
				if strings.HasPrefix(s.Uses, "peter-evans/repository-dispatch@") {
					sends = append(sends, sent{by: name, event: s.With["event-type"]})
				}
			}
		}
		if updates {
			updaters = append(updaters, name)
		}
	}
	if len(updaters) != 1 {
		t.Errorf("workflows that run update-repos: %v, want exactly one", updaters)
	}
	if len(sends) == 0 {
		t.Error("no workflow sends a repository_dispatch; the real pypi_publish.yml sends update-repos after a release")
	}
	for _, s := range sends {
		to := received[s.event]
		if len(to) == 0 {
			t.Errorf("%s sends repository_dispatch %q, and no workflow runs on it", s.by, s.event)
			continue
		}
		if len(updaters) == 1 && !slices.Contains(to, updaters[0]) {
			t.Errorf("%s sends repository_dispatch %q to %v, not to %s, the workflow that updates the model repositories", s.by, s.event, to, updaters[0])
		}
	}
}
