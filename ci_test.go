package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// concurrencyImports are the imports that mark a package as sharing memory between
// goroutines.
var concurrencyImports = []string{"sync", "sync/atomic", "golang.org/x/sync/errgroup", "dagger/shipyard/internal/fanout"}

// concurrentPackages lists the module's packages (by folder, relative to root; "." for the
// root) whose Go files, tests included, start a goroutine or import one of
// concurrencyImports. The separate Go modules under root (supplychain, trivydb) are left
// out: their own tests run whole with the race detector.
func concurrentPackages(root string) ([]string, error) {
	set := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != root {
				return filepath.SkipDir // another Go module
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if startsGoroutines(f) {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			set[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out, err
}

// startsGoroutines reports whether a file has a go statement or a concurrency import.
func startsGoroutines(f *ast.File) bool {
	for _, im := range f.Imports {
		if v, err := strconv.Unquote(im.Path.Value); err == nil && slices.Contains(concurrencyImports, v) {
			return true
		}
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if _, ok := n.(*ast.GoStmt); ok {
			found = true
		}
		return !found
	})
	return found
}

// readRacePackages reads .ci/race-packages: a folder a line, # comments and blank lines
// left out.
func readRacePackages(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(".ci", "race-packages"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// CI runs the race detector only where a race can be (.ci/race-packages): the list must be
// exactly the packages that start goroutines or share memory between them, so that a
// package gaining a goroutine cannot leave the race detector's sight, and none is listed
// for nothing.
func TestRacePackagesAreTheConcurrentOnes(t *testing.T) {
	want, err := concurrentPackages(".")
	if err != nil {
		t.Fatal(err)
	}
	// The file's order is the order CI starts the packages in (the slowest first), so the
	// lists are compared as sets.
	got := readRacePackages(t)
	for _, p := range want {
		if !slices.Contains(got, p) {
			t.Errorf(".ci/race-packages lacks %s, which starts goroutines or shares memory between them: add it", p)
		}
	}
	for i, p := range got {
		if !slices.Contains(want, p) {
			t.Errorf(".ci/race-packages lists %s, which has no concurrency (no go statement, no import of %s): remove it", p, strings.Join(concurrencyImports, ", "))
		}
		if slices.Contains(got[:i], p) {
			t.Errorf(".ci/race-packages lists %s twice", p)
		}
	}
}

// The rule itself, on small files: what marks a package as concurrent, and what does not.
func TestStartsGoroutines(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      bool
	}{
		{"go statement", "package p\nfunc f() { go func() {}() }", true},
		{"go statement of a named function", "package p\nfunc g() {}\nfunc f() { go g() }", true},
		{"sync", "package p\nimport \"sync\"\nvar mu sync.Mutex", true},
		{"sync/atomic", "package p\nimport \"sync/atomic\"\nvar n atomic.Int64", true},
		{"the fan-out", "package p\nimport \"dagger/shipyard/internal/fanout\"\nvar _ = fanout.Each", true},
		{"errgroup", "package p\nimport \"golang.org/x/sync/errgroup\"\nvar _ errgroup.Group", true},
		{"none", "package p\nimport \"strings\"\nfunc f() string { return strings.TrimSpace(\" go \") }", false},
		{"a word go in a comment or string", "package p\n// go func() {}\nvar s = \"go f()\"", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := parser.ParseFile(token.NewFileSet(), "p.go", c.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := startsGoroutines(f); got != c.want {
				t.Errorf("startsGoroutines = %v, want %v", got, c.want)
			}
		})
	}
}

// A stage whose shell function fails under set -e is recorded as failed, with its CPU time,
// and CI's own `set -u` finds nothing unbound on the way out: the table is printed whether
// CI passes or fails.
func TestStageRecordsAFailedFunction(t *testing.T) {
	script := `set -euo pipefail
. .ci/lib/stages.sh
stages_init
trap stages_report EXIT
failing() { false; echo unreachable; }
passing() { echo fine; }
stage "passing fn" 10 10 passing
set +e
stage "failing fn" 10 10 failing
rc=$?
set -e
echo "failing rc=$rc"
`
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), "STAGES_FILE=", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{"failing rc=1", "passing fn", "FAILED (exit 1)", "passed"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	for _, bad := range []string{"unbound variable", "unreachable"} {
		if strings.Contains(text, bad) {
			t.Errorf("output has %q:\n%s", bad, text)
		}
	}
}

// The real-engine suite's engine settings: the kit's file with the suite's garbage
// collector added, everything else kept; anything but a JSON object without its own "gc"
// is refused with the file's name.
func TestEngineSettingsKeepTheKitsAndAddTheGC(t *testing.T) {
	tests := []struct {
		name, kit string
		wantErr   string
	}{
		{name: "the kit's local-registry settings", kit: "{\n  \"registries\": {\n    \"10.87.0.1:5000\": {\"http\": true}\n  }\n}\n"},
		{name: "an empty object", kit: "{ }\n"},
		{name: "not an object", kit: "[]\n", wantErr: "not a JSON object"},
		{name: "empty file", kit: "", wantErr: "not a JSON object"},
		{name: "its own gc", kit: "{\"gc\": {\"enabled\": false}}\n", wantErr: `already sets "gc"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "engine.json")
			if err := os.WriteFile(file, []byte(tt.kit), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("bash", "-c", `set -euo pipefail; . .ci/lib/engine-settings.sh; engine_settings "$1"`, "bash", file)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(stderr.String(), tt.wantErr) || !strings.Contains(stderr.String(), file) {
					t.Fatalf("err %v, stderr %q: want a failure naming %s and %q", err, stderr.String(), file, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			var got, kit map[string]any
			if err := json.Unmarshal([]byte(stdout.String()), &got); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, stdout.String())
			}
			if err := json.Unmarshal([]byte(tt.kit), &kit); err != nil {
				t.Fatal(err)
			}
			gc, _ := got["gc"].(map[string]any)
			if gc["minFreeSpace"] != "5GB" || gc["reservedSpace"] != "10GB" || gc["maxUsedSpace"] != "60%" {
				t.Errorf("gc = %v", got["gc"])
			}
			delete(got, "gc")
			if !reflect.DeepEqual(got, kit) {
				t.Errorf("the kit's settings became %v, want %v", got, kit)
			}
		})
	}
}

// The suite's ten slowest tests come from a log of any size: a passing suite with many
// subtests once failed CI with exit 141, when `head` closed the pipe on sort under pipefail.
func TestSlowestListsTheTenSlowestOfALargeLog(t *testing.T) {
	var log strings.Builder
	const tests = 20000 // far more output than a pipe holds
	for i := range tests {
		fmt.Fprintf(&log, "=== RUN   TestX/case_%d\n    --- PASS: TestX/case_%d (%d.%02ds)\n", i, i, i/100, i%100)
	}
	log.WriteString("--- FAIL: TestSlowFail (500.00s)\n--- SKIP: TestSlowSkip (400.50s)\nok  \tdagger/shipyard\t1.0s\n")
	file := filepath.Join(t.TempDir(), "suite.log")
	if err := os.WriteFile(file, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", `set -euo pipefail; . .ci/lib/slowest.sh; slowest "$1"`, "bash", file)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("slowest: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	want := []string{
		"== the suite's ten slowest tests",
		"     500.0 s  TestSlowFail (FAIL)",
		"     400.5 s  TestSlowSkip (SKIP)",
	}
	for i := tests - 1; len(want) < 11; i-- {
		want = append(want, fmt.Sprintf("  %8.1f s  TestX/case_%d", float64(i/100)+float64(i%100)/100, i))
	}
	if !slices.Equal(lines, want) {
		t.Errorf("slowest printed\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// The suite's engine start: the kit's engine is stopped, then started with the suite's
// settings and a wait long enough for an engine that wipes an unreadable cache state; one
// that still does not start is started once more with its state removed, and one that fails
// that too fails the stage.
func TestEngineStartRetriesOnceWithoutTheState(t *testing.T) {
	tests := []struct {
		name      string
		failures  int // how many starts fail before one succeeds
		wantCalls []string
		wantErr   bool
	}{
		{name: "starts", failures: 0, wantCalls: []string{"stop clean=", "start config=SETTINGS wait=600"}},
		{name: "starts without its state", failures: 1, wantCalls: []string{
			"stop clean=", "start config=SETTINGS wait=600", "stop clean=1", "start config=SETTINGS wait=600"}},
		{name: "does not start", failures: 2, wantErr: true, wantCalls: []string{
			"stop clean=", "start config=SETTINGS wait=600", "stop clean=1", "start config=SETTINGS wait=600"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kit := t.TempDir()
			calls := filepath.Join(kit, "calls")
			fake := map[string]string{
				"stop.sh": `echo "stop clean=${CLEAN_STATE:-}" >> "$CALLS"`,
				// Fails while the count of earlier failures is under FAILURES.
				"start.sh": `echo "start config=$ENGINE_CONFIG wait=$ENGINE_START_TIMEOUT" >> "$CALLS"
n=$(grep -c '^start' "$CALLS")
[ "$n" -gt "$FAILURES" ] || { echo "no engine socket" >&2; exit 1; }
echo "export ENGINE_PID=42"`,
			}
			for name, body := range fake {
				if err := os.WriteFile(filepath.Join(kit, name), []byte("#!/usr/bin/env bash\n"+body+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			out := filepath.Join(kit, "engine.env")
			cmd := exec.Command("bash", "-c", `set -euo pipefail; . .ci/lib/engine-settings.sh; engine_start "$1" SETTINGS "$2"`, "bash", kit, out)
			cmd.Env = append(os.Environ(), "CALLS="+calls, fmt.Sprintf("FAILURES=%d", tt.failures), "ENGINE_START_TIMEOUT=")
			output, err := cmd.CombinedOutput()
			if (err != nil) != tt.wantErr {
				t.Fatalf("engine_start: err %v, want error %v\n%s", err, tt.wantErr, output)
			}
			b, err := os.ReadFile(calls)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Split(strings.TrimSpace(string(b)), "\n"); !slices.Equal(got, tt.wantCalls) {
				t.Errorf("calls\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.wantCalls, "\n"))
			}
			env, _ := os.ReadFile(out)
			if tt.wantErr == (string(env) == "export ENGINE_PID=42\n") {
				t.Errorf("engine.env = %q after err %v", env, err)
			}
			if tt.failures == 1 && !strings.Contains(string(output), "removing the state") {
				t.Errorf("the retry is not explained:\n%s", output)
			}
		})
	}
}
