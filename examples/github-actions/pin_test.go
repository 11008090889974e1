package githubactions

import (
	"os"
	"path/filepath"
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
	template, err := filepath.Glob(filepath.Join(repoRoot, "models", "modelrelease", "template", "*.yml"))
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

// TestPinnedReleaseHasEveryFunctionTheWrappersCall reads the module as it is at the commit
// the wrappers and the template patch pin, from git, and checks every call of theirs
// against it: what users copy must run on what it pins, not on what main holds today.
// Every pin names the same release (selfrelease.CheckPinnedRelease): its commit, with the
// tag as a comment, the tag on that commit or on the re-pin commit right after it (a tag
// not created yet only for the release the CHANGELOG prepares).
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
	// The docs name the release too (by its tag): they must name the same one.
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
		pins = append(pins, selfrelease.FindPins(f, b)...)
	}
	changelog, err := os.ReadFile(filepath.Join(repoRoot, selfrelease.ChangelogFile))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	c, _ := selfrelease.ParseChangelog(changelog)
	repo := selfrelease.Repo{Dir: repoRoot}
	rel, err := repo.ReleaseOf(pins, c.Newest(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range selfrelease.CheckPinnedRelease(rel) {
		t.Error(p)
	}
	var commit, tag string
	for _, p := range pins {
		if p.Commit != "" {
			commit, tag = p.Commit, p.Tag
			break
		}
	}
	if commit == "" {
		t.Fatal("no pin names a commit")
	}
	s, err := modsurface.FromGit(repoRoot, commit, "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	problems, calls := checkCalls(t, s, files)
	for _, p := range problems {
		t.Errorf("at the pinned %s (%s): %s", tag, commit[:12], p)
	}
	if calls == 0 {
		t.Fatal("no dagger call found")
	}
}
