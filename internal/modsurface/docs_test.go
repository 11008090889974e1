package modsurface_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/modsurface"
	"dagger/shipyard/internal/realengine"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/pipelines/publish"
)

const root = "../.."

// docFiles are the documents a user reads: the README and the pages of docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs (%v)", err)
	}
	return append([]string{filepath.Join(root, "README.md")}, docs...)
}

// contributorDocs name functions as a contributor reads the code, not as a user runs
// them: their commands need not say how the module is reached.
var contributorDocs = []string{"architecture.md", "releasing-shipyard.md"}

// pushes are the functions that write to the registry: Docker Hub refuses them without
// a login. Each reaches the module's target (its registry login), which the test checks.
var pushes = []string{
	"push-by-digest", "push-platform-by-digest", "assemble-index", "attest", "sign", "tag-images", "publish-dev",
	"release", "release-push", "release-push-platform", "release-assemble", "release-publish",
}

// docCall is one documented dagger call, read against the module's surface.
type docCall struct {
	modsurface.Call
	file string
	s    modsurface.Surface
}

// first is the function the call runs first on the module (with-… settings aside).
func (c docCall) first() (modsurface.Link, modsurface.Function, bool) {
	for _, l := range c.Links {
		if l.On == "Shipyard" && !strings.HasPrefix(l.Name, "with-") {
			return l, c.s.Functions[l.Name], true
		}
	}
	return modsurface.Link{}, modsurface.Function{}, false
}

// docRules are what a documented call must do beyond matching the surface, each the
// module's own rule or what its code does.
var docRules = []struct {
	name string
	rule func(c docCall) string
}{
	{"reached", func(c docCall) string {
		if c.Constructor.Has("demo") || c.Constructor.Elided ||
			c.Module != "" || c.Toolchain != "" {
			return ""
		}
		return "does not say how the module is reached: `dagger call shipyard …` where Shipyard is installed as a toolchain, " +
			"or `dagger call -m <address> --source=. …`"
	}},
	{"caller's tree", func(c docCall) string {
		l, fn, ok := c.first()
		if !ok || c.Module == "" || c.Constructor.Elided || c.Constructor.Has("source") || !fn.Reaches("Source") {
			return ""
		}
		return l.Name + " works on the caller's tree: with -m, --source defaults to Shipyard's own; pass --source=."
	}},
	{"registry login", func(c docCall) string {
		if c.Constructor.Elided || c.Constructor.Has("registry") {
			return ""
		}
		for _, l := range c.Links {
			if l.On != "Shipyard" || !slices.Contains(pushes, l.Name) || l.Has("dry-run") {
				continue
			}
			if !c.Constructor.Has("registry-username") || !c.Constructor.Has("registry-password") {
				return l.Name + " writes to Docker Hub, which refuses it without --registry-username and --registry-password"
			}
		}
		return ""
	}},
	{"provenance", func(c docCall) string {
		with, ok := c.Function("with-sigstore")
		l, fn, hasFn := c.first()
		if !ok || with.Elided || !hasFn || !fn.Reaches("origin") || !fn.Reaches("signInputs") || l.Has("dry-run") {
			return ""
		}
		p := publish.Origin{BuilderID: with.Flags["builder-id"], BuildType: with.Flags["build-type"]}
		if with.Has("github-env") {
			p.GitHub = map[string]string{"GITHUB_WORKFLOW_REF": "given"}
		}
		if err := p.CheckBuilder(); err != nil {
			return l.Name + " attests: " + err.Error()
		}
		return ""
	}},
	{"Cloudcoil repository", func(c docCall) string {
		l, fn, ok := c.first()
		if !ok || c.Constructor.Elided || c.Constructor.Has("repo") {
			return ""
		}
		cloudcoil := (fn.File == "modelrepos.go" || fn.File == "cloudcoil.go") && fn.Reaches("Repo")
		if l.Name == "doctor" && strings.HasPrefix(l.Flags["system"], "cloudcoil") {
			cloudcoil = true
		}
		if !cloudcoil {
			return ""
		}
		return l.Name + " works on a Cloudcoil repository: give --repo, whose default is tesk-core"
	}},
}

// documentedCalls reads every dagger call and dagger check of the docs against the
// module's surface and returns every problem, the rules' included.
func documentedCalls(t *testing.T) ([]docCall, []string) {
	t.Helper()
	s, err := modsurface.FromSource(root, "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	core, err := engine.CoreTypes()
	if err != nil {
		t.Fatal(err)
	}
	types := core.With("Shipyard", s)
	var calls []docCall
	var problems []string
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, f)
		for _, c := range modsurface.MarkdownCommands(name, string(b)) {
			if c.Verb == "check" {
				problems = append(problems, modsurface.CheckNames(c, s, []string{"shipyard"})...)
				continue
			}
			call, p := modsurface.Read(c, types, "Shipyard", s.Constructor, []string{"shipyard"})
			problems = append(problems, p...)
			dc := docCall{Call: call, file: name, s: s}
			calls = append(calls, dc)
			for _, r := range docRules {
				if slices.Contains(contributorDocs, filepath.Base(name)) {
					break
				}
				if msg := r.rule(dc); msg != "" {
					problems = append(problems, fmt.Sprintf("%s: %s: %s: %s", c.Where, r.name, msg, c.Text))
				}
			}
		}
	}
	return calls, problems
}

// TestDocumentedCommands checks every `dagger call` and `dagger check` of the README and
// docs/ against the module as it is: the function exists, its flags are its own or the
// constructor's, required ones are given, what is chained is a function of its result;
// and the rules of docRules.
func TestDocumentedCommands(t *testing.T) {
	calls, problems := documentedCalls(t)
	for _, p := range problems {
		t.Error(p)
	}
	if len(calls) < 60 {
		t.Errorf("read %d documented calls; the reader misses some", len(calls))
	}
}

// The pushing functions the registry-login rule names are those that reach the login.
func TestPushesReachTheRegistryLogin(t *testing.T) {
	s, err := modsurface.FromSource(root, "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range pushes {
		if fn, ok := s.Functions[name]; !ok || !fn.Reaches("target") {
			t.Errorf("%s: not a function that logs in to the registry (%v)", name, fn.Uses)
		}
	}
}

// releaseSections are the documents' release steps for tesk-core, in order.
var releaseSections = map[string]string{"README.md": "## Releasing tesk-core", "docs/tesk-core-releasing.md": "## Releasing tesk-core"}

// TestReleaseStepsRehearseBeforeTheTag reads the release steps in order: before the step
// that pushes the tag, release-plan can only rehearse a commit (--commit), and the release
// itself cannot run at all: both need the tag, and say it does not exist.
func TestReleaseStepsRehearseBeforeTheTag(t *testing.T) {
	for doc, heading := range releaseSections {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(doc)))
		if err != nil {
			t.Fatal(err)
		}
		head, section, ok := strings.Cut(string(b), heading+"\n")
		if !ok {
			t.Fatalf("%s has no section %q", doc, heading)
		}
		// Blank lines in place of what precedes the section keep the lines' numbers.
		offset := strings.Repeat("\n", strings.Count(head, "\n")+1)
		if next := strings.Index(section, "\n## "); next >= 0 {
			section = section[:next]
		}
		tagAt := strings.Index(section, "git tag -s")
		if tagAt < 0 {
			t.Fatalf("%s: the release steps push no tag", doc)
		}
		before := section[:tagAt]
		rehearsed := 0
		for _, c := range modsurface.MarkdownCommands(doc, offset+before) {
			if c.Verb != "call" {
				continue
			}
			for i, w := range c.Words {
				switch {
				case w == "release":
					t.Errorf("%s: %s runs the release before the tag is pushed: it stops at the gates (tag does not exist): %s", doc, c.Where, c.Text)
				case w == "release-plan" && !slices.ContainsFunc(c.Words[i:], func(f string) bool { return f == "--commit" || strings.HasPrefix(f, "--commit=") }):
					t.Errorf("%s: %s checks a tag that is not pushed yet; rehearse the commit with --commit: %s", doc, c.Where, c.Text)
				case w == "release-plan":
					rehearsed++
				}
			}
		}
		if rehearsed == 0 {
			t.Errorf("%s: no rehearsal (release-plan --commit) before the tag", doc)
		}
	}
}

// offPyPI are the functions that install Python packages from PyPI (or read it), which the
// real-engine suite has no access to.
var offPyPI = []string{"lint", "test", "test-check", "docs", "patch-coverage", "ci", "gen-repo", "check-artifacts",
	"model-ci", "model-release", "update-repos", "publish-check", "check-extras"}

// whyNotRun says why the real engine of the suite cannot run a documented call as
// printed, or "" when it can.
func whyNotRun(c docCall) string {
	l, fn, ok := c.first()
	switch {
	case strings.Contains(c.Text, "…") || c.Constructor.Elided || slices.ContainsFunc(c.Links, func(l modsurface.Link) bool { return l.Elided }):
		return "elided: the reader fills in the rest"
	case strings.HasPrefix(c.Module, "github.com/"), c.Module == "$SHIPYARD":
		// The docs set SHIPYARD to a release's address, as the workflows do.
		return "fetches Shipyard from GitHub"
	case !ok:
		return "names no function"
	case c.Constructor.Has("github-token") || ((fn.Reaches("githubClient") || fn.Reaches("githubCommand")) && !c.Constructor.Has("demo")):
		return "calls GitHub's API"
	case l.Name == "validate-models" && !l.Has("list"), slices.Contains(offPyPI, l.Name):
		return "installs Python packages from PyPI"
	case l.Name == "end-to-end":
		return "runs k3s"
	case (slices.Contains(pushes, l.Name) && !l.Has("dry-run")) || l.Name == "verify" || l.Name == "scan-published" || l.Name == "scan-digests":
		return "reaches Docker Hub"
	case l.Name == "scan" || l.Name == "scan-check":
		return "downloads Trivy's published vulnerability database"
	case slices.ContainsFunc(c.Links, func(l modsurface.Link) bool { return l.Name == "terminal" }):
		return "opens an interactive terminal"
	case c.Toolchain != "" && (fn.File == "modelrepos.go" || fn.File == "cloudcoil.go"):
		return "runs in a Cloudcoil checkout with Shipyard as a toolchain, which the suite does not set up; " +
			"it runs the function with -m on the real Cloudcoil tree (modelversions_realtree_test.go, modelrepos_test.go)"
	}
	return ""
}

// TestDocumentedCommandsRunOnTheRealEngine holds the suite to the docs: every documented
// command that the real engine here can run is one the suite runs exactly as printed
// (realengine.DocumentedRuns), and every other says why it cannot.
func TestDocumentedCommandsRunOnTheRealEngine(t *testing.T) {
	runs := realengine.DocumentedRuns()
	calls, _ := documentedCalls(t)
	printed := map[string]bool{}
	for _, c := range calls {
		printed["dagger call "+strings.Join(c.Words, " ")] = true
		if slices.Contains(contributorDocs, filepath.Base(c.file)) {
			continue
		}
		key := "dagger call " + strings.Join(c.Words, " ")
		_, run := runs[key]
		switch why := whyNotRun(c); {
		case run && why != "":
			t.Errorf("%s: the suite runs %q, which %s", c.Where, key, why)
		case !run && why == "":
			t.Errorf("%s: the real engine can run %q as printed: add it to realengine.DocumentedRuns and run it", c.Where, c.Raw)
		}
	}
	for cmd, test := range runs {
		if !printed[cmd] {
			t.Errorf("%s runs %q, which no document prints", test, cmd)
		}
	}
}
