package models

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
)

// historyCommit is one commit of the real Cloudcoil history: its abbreviated id, subject
// and every path it touched (both sides of a rename).
type historyCommit struct {
	id, subject string
	paths       []string
}

// readHistory parses `git log --name-status` as the corpus holds it.
func readHistory(t *testing.T) []historyCommit {
	t.Helper()
	data := corpus.Read(t, "cloudcoil", "history.txt")
	var commits []historyCommit
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "commit "); ok {
			f := strings.SplitN(rest, " ", 3)
			if len(f) != 3 {
				t.Fatalf("history.txt: malformed commit line %q", line)
			}
			commits = append(commits, historyCommit{id: f[0][:10], subject: f[2]})
			continue
		}
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(commits) == 0 || len(f) < 2 {
			t.Fatalf("history.txt: unexpected line %q", line)
		}
		c := &commits[len(commits)-1]
		c.paths = append(c.paths, f[1:]...)
	}
	return commits
}

// realIntegrations lists the integrations of the real tree: the folders under models/.
func realIntegrations(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(corpus.Dir(t, "cloudcoil"), "tree", "models"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

// isCoreFile says whether a path belongs to Cloudcoil core: neither the template, the
// Makefile with its gen-repo-% rule, nor an integration's folder.
func isCoreFile(p string) bool {
	return !strings.HasPrefix(p, "cookiecutter/") && p != "Makefile" && !strings.HasPrefix(p, "models/")
}

// TestChangeRulesAgainstRealHistory replays every commit of the real Cloudcoil history
// through the change rules. The rules this project had before counted the root
// pyproject.toml and uv.lock as shared: 52 of the 120 commits then validated all 12
// integrations, 26 of them touching only core files. Now a core-only commit validates
// nothing, a template commit everything, and models/<name>/ exactly that integration;
// a commit to the generator (cloudcoil/codegen/) validates everything, with the
// checkout's generator, and #64, #81 and #85, which changed it with the template, are
// among them.
func TestChangeRulesAgainstRealHistory(t *testing.T) {
	commits := readHistory(t)
	all := realIntegrations(t)
	if len(commits) != 120 || len(all) != 12 {
		t.Fatalf("history: %d commits, %d integrations; want 120 and 12", len(commits), len(all))
	}

	// The former rules reproduce the figures the real history gave them, which also
	// proves the history is read completely.
	former := ChangeRules{IntegrationsDir: "models", UpstreamsFile: "models/upstreams.json",
		Shared: []string{"cookiecutter/", "template/", "requirements/", "tools/", "pyproject.toml", "uv.lock", "Makefile", ".github/workflows/*model*"}}
	var formerAll, formerCoreOnly int
	for _, c := range commits {
		if _, every := former.Changed(c.paths, all); every {
			formerAll++
			if !slices.ContainsFunc(c.paths, func(p string) bool { return !isCoreFile(p) }) {
				formerCoreOnly++
			}
		}
	}
	if formerAll != 52 || formerCoreOnly != 26 {
		t.Fatalf("former rules: %d commits validate everything, %d of them core-only; want 52 and 26", formerAll, formerCoreOnly)
	}

	var everythingNow, coreOnly, generatorCommits int
	generatorWithTemplate := map[string]bool{}
	for _, c := range commits {
		got, every := ChangedIntegrations(c.paths, all)
		template := slices.ContainsFunc(c.paths, func(p string) bool { return strings.HasPrefix(p, "cookiecutter/") || p == "Makefile" })
		generator := slices.ContainsFunc(c.paths, func(p string) bool { return strings.HasPrefix(p, "cloudcoil/codegen/") })
		if generator != GeneratorChanged(c.paths) {
			t.Errorf("%s %q: GeneratorChanged = %v, want %v", c.id, c.subject, !generator, generator)
		}
		if generator {
			generatorCommits++
			for _, pr := range []string{"(#64)", "(#81)", "(#85)"} {
				if strings.Contains(c.subject, pr) {
					generatorWithTemplate[pr] = template
				}
			}
		}
		var folders []string
		for _, p := range c.paths {
			if rest, ok := strings.CutPrefix(p, "models/"); ok {
				if name, _, ok := strings.Cut(rest, "/"); ok && slices.Contains(all, name) && !slices.Contains(folders, name) {
					folders = append(folders, name)
				}
			}
		}
		slices.Sort(folders)
		switch {
		case template, generator:
			if !every || !slices.Equal(got, all) {
				t.Errorf("%s %q touches the template, the Makefile or the generator: got %q, %v; want all", c.id, c.subject, got, every)
			}
			everythingNow++
		default:
			if every || !slices.Equal(got, folders) {
				t.Errorf("%s %q: got %q, %v; want exactly %q", c.id, c.subject, got, every, folders)
			}
			if len(folders) == 0 {
				coreOnly++
			}
		}
	}
	t.Logf("real history: %d commits validate everything (was %d), %d of them with the checkout's generator; %d validate nothing", everythingNow, formerAll, generatorCommits, coreOnly)
	for _, pr := range []string{"(#64)", "(#81)", "(#85)"} {
		if !generatorWithTemplate[pr] {
			t.Errorf("the history's %s is not a commit to the generator and the template together", pr)
		}
	}
	if everythingNow >= formerAll {
		t.Errorf("%d commits still validate everything", everythingNow)
	}

	// The real commits that moved versions are the examples of a per-integration change.
	byID := map[string]historyCommit{}
	for _, c := range commits {
		byID[c.id] = c
	}
	for id, want := range map[string][]string{
		"1f684ab10d": {"cert-manager", "fluxcd", "kyverno", "prometheus-operator"}, // Bump model versions (#110)
		"4c06b5e8d6": {"prometheus-operator"},                                      // Drop extra s
	} {
		got, every := ChangedIntegrations(byID[id].paths, all)
		if every || !slices.Equal(got, want) {
			t.Errorf("%s %q: got %q, %v; want %q", id, byID[id].subject, got, every, want)
		}
	}
	if got, every := ChangedIntegrations(byID["8b1862a82b"].paths, all); !every || len(got) != 12 {
		t.Errorf("8b1862a82b (the template's minimum Cloudcoil): got %q, %v; want all 12", got, every)
	}
}
