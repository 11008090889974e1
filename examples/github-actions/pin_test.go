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

// templatePatch is the Cloudcoil template patch, whose workflows pin Shipyard like the
// wrappers do.
var templatePatch = filepath.Join(repoRoot, "models", "modelrelease", "cloudcoil-template.patch")

// pinnedFiles are the wrappers and the template patch: every file that pins Shipyard and
// calls it.
func pinnedFiles(t *testing.T) []string {
	t.Helper()
	return append(workflows(t), templatePatch)
}

// fileCommands reads every dagger command of a workflow, or of the workflows a patch
// writes (its added and context lines, at the patch's own line numbers).
func fileCommands(t *testing.T, path string) []modsurface.Command {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if strings.HasSuffix(path, ".patch") {
		lines := strings.Split(text, "\n")
		for i, l := range lines {
			switch {
			case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "-"):
				lines[i] = ""
			case strings.HasPrefix(l, "+"), strings.HasPrefix(l, " "):
				lines[i] = l[1:]
			default:
				lines[i] = ""
			}
		}
		text = strings.Join(lines, "\n")
	}
	return modsurface.ScriptCommands(path, 1, text)
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
// Every pin names the same commit and, as a comment, the release tag at that commit.
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
	if len(pins) == 0 {
		t.Fatal("no pin found")
	}
	pin := pins[0]
	agree := true
	for _, p := range pins {
		switch {
		case p.Commit == "":
			t.Errorf("%s:%d: %s names a tag only: pin the commit, with the tag as a comment (%s@<sha> # <tag>)", p.File, p.Line, p, selfrelease.Module)
			agree = false
		case p.Tag == "":
			t.Errorf("%s:%d: %s has no tag comment: Renovate and readers need the release it is (… # vX.Y.Z)", p.File, p.Line, p)
		}
		if p.Commit != pin.Commit || p.Tag != pin.Tag {
			t.Errorf("%s:%d pins %s, %s:%d %s: every wrapper pins the same release (scripts/shipyard-release repin)", p.File, p.Line, p, pin.File, pin.Line, pin)
			agree = false
		}
	}
	if !agree {
		return
	}
	if pin.Tag != "" {
		tagged, err := modsurface.ResolveCommit(repoRoot, "refs/tags/"+pin.Tag)
		switch {
		case err != nil:
			t.Errorf("the pins name the release %s: %v", pin.Tag, err)
		case tagged != pin.Commit:
			t.Errorf("the pins name %s at %s, but the tag %s is on %s: re-pin with scripts/shipyard-release repin %s", pin.Tag, pin.Commit, pin.Tag, tagged, pin.Tag)
		}
	}
	s, err := modsurface.FromGit(repoRoot, pin.Commit, "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	problems, calls := checkCalls(t, s, files)
	for _, p := range problems {
		t.Errorf("at the pinned %s (%s): %s", pin.Tag, pin.Commit[:12], p)
	}
	if calls == 0 {
		t.Fatal("no dagger call found")
	}
}
