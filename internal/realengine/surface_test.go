//go:build realengine

package realengine

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/modsurface"
)

// The engine registers exactly the API the source declares (names, argument types,
// optionality, defaults, default paths), every function answers --help with each of its
// flags, and `dagger check` lists exactly the +check functions. The README table and the
// wrappers are held to the declared surface by their own tests (internal/modsurface,
// examples/github-actions), so they match what the engine registered too.
func TestRegisteredSurfaceIsTheDeclaredOne(t *testing.T) {
	declared, err := modsurface.FromSource(repoRoot, "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	q := cli(t, nil, modsurface.TypeDefsQuery, "query")
	if q.err != nil {
		t.Fatalf("dagger query: %s", q)
	}
	registered, err := modsurface.FromTypeDefs([]byte(q.stdout), "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range modsurface.Diff(declared, registered) {
		t.Error(d)
	}

	fns := cli(t, nil, "", "functions")
	if fns.err != nil {
		t.Fatalf("dagger functions: %s", fns)
	}
	for _, name := range declared.Names() {
		if !strings.Contains(fns.stdout, name) {
			t.Errorf("dagger functions does not list %s", name)
		}
	}

	checks := cli(t, nil, "", "check", "-l")
	if checks.err != nil {
		t.Fatalf("dagger check -l: %s", checks)
	}
	var wantChecks, gotChecks []string
	for _, name := range declared.Names() {
		if declared.Functions[name].Check {
			wantChecks = append(wantChecks, name)
		}
		if listedAsCheck(checks.stdout, name) {
			gotChecks = append(gotChecks, name)
		}
	}
	if !slices.Equal(gotChecks, wantChecks) {
		t.Errorf("dagger check -l lists %v, the source marks %v as +check:\n%s", gotChecks, wantChecks, checks.stdout)
	}
}

// pragmaLine is a doc comment's pragma line, as a description would show it.
var pragmaLine = regexp.MustCompile(`(?m)^\s*\+[a-zA-Z]+(=|\s*$)`)

func TestEveryFunctionAnswersHelp(t *testing.T) {
	declared, err := modsurface.FromSource(repoRoot, "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range declared.Names() {
		t.Run(name, func(t *testing.T) {
			h := cli(t, nil, "", "call", name, "--help")
			if h.err != nil {
				// All of stderr: the one failure seen (exit 1 in 0.2 s under load) could not be
				// read from the last lines, which held only the module's loading.
				t.Fatalf("dagger call %s --help: %v\nstdout:\n%s\nstderr:\n%s", name, h.err, h.stdout, h.stderr)
			}
			for arg := range declared.Functions[name].Args {
				mustContain(t, name+" --help", h.stdout, "--"+arg)
			}
			// The module's own pragmas (+trust, +cacheReason …) declare the function for
			// internal/functions; the engine must strip them from its description, as
			// Dagger's codegen does with every +pragma.
			if p := pragmaLine.FindString(h.stdout); p != "" {
				t.Errorf("dagger call %s --help shows the pragma %q", name, strings.TrimSpace(p))
			}
		})
	}
}

// listedAsCheck finds a check in `dagger check -l` output, where a line starts with the
// check's name (for a module called directly) or <module>:<name>.
func listedAsCheck(out, name string) bool {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] == name || strings.HasSuffix(f[0], ":"+name) || filepath.Base(f[0]) == name {
			return true
		}
	}
	return false
}
