package githubactions

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"dagger/shipyard/internal/modsurface"
	"dagger/shipyard/internal/selfrelease"
	"dagger/shipyard/internal/testkit/engine"
)

// repoRoot is the repository's root, whose git history holds every pinned release.
var repoRoot = filepath.Join("..", "..")

// pinnedFiles are the wrappers and the workflows the Cloudcoil template patch writes:
// every file that pins Shipyard and calls it.
func pinnedFiles(t *testing.T) []string {
	t.Helper()
	template, err := filepath.Glob(filepath.Join(repoRoot, "models", "genrepo", "template", "*.yml"))
	if err != nil || len(template) == 0 {
		t.Fatalf("no template workflows (%v)", err)
	}
	return append(workflows(t), template...)
}

// fileCommands reads every dagger command of a workflow.
func fileCommands(t *testing.T, path string) []modsurface.Command {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return modsurface.ScriptCommands(path, 1, string(b))
}

// checkCalls reads every command of files against the surface s (with the engine's core
// types for chained calls) and returns every problem, and how many calls it read.
func checkCalls(t *testing.T, s modsurface.Surface, files []string) ([]string, int) {
	t.Helper()
	core, err := engine.CoreTypes()
	if err != nil {
		t.Fatal(err)
	}
	types := core.With("Shipyard", s)
	var problems []string
	calls := 0
	for _, f := range files {
		for _, c := range fileCommands(t, f) {
			calls++
			switch c.Verb {
			case "call":
				_, p := modsurface.Read(c, types, "Shipyard", s.Constructor, []string{"shipyard"})
				problems = append(problems, p...)
			case "check":
				problems = append(problems, modsurface.CheckNames(c, s, []string{"shipyard"})...)
			}
		}
	}
	return problems, calls
}

// TestDaggerCallsMatchTheModule reads the module's source as it is and checks every
// `dagger call` of the wrappers and of the template patch's workflows: the function
// exists, each flag is one of its arguments or of the constructor's, every required
// argument is given, and what is chained after it is a function of its result.
func TestDaggerCallsMatchTheModule(t *testing.T) {
	s, err := modsurface.FromSource(repoRoot, "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	problems, calls := checkCalls(t, s, pinnedFiles(t))
	for _, p := range problems {
		t.Error(p)
	}
	if calls < 20 {
		t.Fatalf("found %d dagger calls in the wrappers and the template patch; the parser misses some", calls)
	}
}

// TestPinnedReleaseHasEveryFunctionTheWrappersCall holds every pin of the wrappers, the
// template patch's workflows, the README and docs/ to the release it names, from git:
// every pin is the release's full commit with its tag as a comment, the commit CHANGELOG.md
// names for that version, an ancestor of HEAD (so it resolves wherever main exists, tag
// or not), and the module at that commit has every function and flag the wrappers call
// there, and every one the docs call unless marked (unreleased).
func TestPinnedReleaseHasEveryFunctionTheWrappersCall(t *testing.T) {
	files := pinnedFiles(t)
	var pins []selfrelease.Pin
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		found := selfrelease.FindPins(f, b)
		if len(found) == 0 {
			t.Errorf("%s pins no Shipyard release", f)
		}
		pins = append(pins, found...)
	}
	docs := map[string][]byte{}
	all, err := selfrelease.Files(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		if !strings.HasSuffix(f, ".md") {
			continue // the workflows and the patch are read above
		}
		b, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = b
		pins = append(pins, selfrelease.FindPins(f, b)...)
	}
	if len(pins) == 0 {
		t.Fatal("no pin found")
	}
	tag := pins[0].Tag
	changelog, err := os.ReadFile(filepath.Join(repoRoot, selfrelease.ChangelogFile))
	if err != nil {
		t.Fatal(err)
	}
	c, problems := selfrelease.ParseChangelog(changelog)
	for _, p := range problems {
		t.Errorf("%s:%s", selfrelease.ChangelogFile, p)
	}
	section, ok := c.Section(strings.TrimPrefix(tag, "v"))
	if !ok || section.Commit == "" {
		t.Fatalf("the pins name %s, but %s has no section of it with its release line (%s): re-pin to a release (scripts/shipyard-release repin)",
			tag, selfrelease.ChangelogFile, selfrelease.ReleaseLine("<sha>", tag))
	}
	for _, p := range selfrelease.CheckPins(pins, selfrelease.Pin{Commit: section.Commit, Tag: tag}) {
		t.Error(p)
	}
	commit := section.Commit
	repo := selfrelease.Repo{Dir: repoRoot}
	if ok, err := repo.IsAncestor(commit, "HEAD"); err != nil || !ok {
		t.Fatalf("the pinned %s, %s, is not an ancestor of HEAD (%v): a pin must resolve wherever main exists", tag, commit, err)
	}
	if tagged, err := repo.Commit("refs/tags/" + tag); err == nil && tagged != commit {
		t.Errorf("tag %s is on %s, not on the release commit %s that %s names", tag, tagged, commit, selfrelease.ChangelogFile)
	}
	s, err := modsurface.FromGit(repoRoot, commit, "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	problems2, calls := checkCalls(t, s, files)
	for _, p := range problems2 {
		t.Errorf("at the pinned %s (%s): %s", tag, commit[:12], p)
	}
	if calls == 0 {
		t.Fatal("no dagger call found")
	}
	docProblems, docCalls := docsAgainst(t, s, docs)
	for _, p := range docProblems {
		t.Errorf("at the pinned %s (%s): %s", tag, commit[:12], p)
	}
	if docCalls < 60 {
		t.Errorf("read %d documented calls; the reader misses some", docCalls)
	}
}

// docsAgainst reads every documented dagger call against the surface s of the pinned
// release and returns the problems of those not marked (unreleased), and how many calls
// it read.
func docsAgainst(t *testing.T, s modsurface.Surface, docs map[string][]byte) ([]string, int) {
	t.Helper()
	core, err := engine.CoreTypes()
	if err != nil {
		t.Fatal(err)
	}
	types := core.With("Shipyard", s)
	var out []string
	calls := 0
	for name, b := range docs {
		for _, c := range modsurface.MarkdownCommands(name, string(b)) {
			calls++
			var problems []string
			if c.Verb == "check" {
				problems = modsurface.CheckNames(c, s, []string{"shipyard"})
			} else {
				_, problems = modsurface.Read(c, types, "Shipyard", s.Constructor, []string{"shipyard"})
			}
			if len(problems) == 0 || selfrelease.MarkedUnreleased(b, lineOf(c.Where)) {
				continue
			}
			for _, p := range problems {
				out = append(out, p+" (the pinned release lacks it: mark it "+selfrelease.UnreleasedMark+")")
			}
		}
	}
	return out, calls
}

// lineOf reads the line of a command's "file:line".
func lineOf(where string) int {
	i := strings.LastIndex(where, ":")
	n, _ := strconv.Atoi(where[i+1:])
	return n
}
