package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/semver"

	"dagger/shipyard/internal/demoworld/corpus"
)

// The engine's Go SDK runtime runs codegen with --lib-version (core/sdk/go_sdk.go), and
// codegen then moves the module onto that SDK commit with go get, unless go.mod replaces
// dagger.io/dagger. This test does the same to a copy of the module and builds it, so a
// call that only v0.21.8's client has (LoadDirectoryFromID, the …ID types) fails here, not
// on a user's first dagger call.
func TestModuleBuildsOnTheEnginesLibSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the module against a second SDK version")
	}
	root := corpus.RepoRoot(t)
	goproxyDir := kitGoproxy(t, root)
	lib := engineLibVersion(t, daggerSource(t))
	mod := copyModule(t, root)

	for _, r := range goModReplaces(t, mod) {
		if r.Old.Path == "dagger.io/dagger" {
			t.Fatalf("go.mod replaces dagger.io/dagger (=> %s %s): the engine's codegen then keeps the module off its lib SDK, the one its Go caches are warmed with; drop the replace", r.New.Path, r.New.Version)
		}
	}

	upstream := strings.TrimSpace(goEnv(t, "GOPROXY"))
	env := append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(goproxyDir)+","+upstream,
		"GONOSUMDB=dagger.io/dagger",
		"GOFLAGS=-mod=mod",
		"GOWORK=off",
	)
	run := func(args ...string) string {
		t.Helper()
		out, err := goIn(mod, env, args...)
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	run("get", "dagger.io/dagger@"+lib)
	got := strings.Fields(run("list", "-m", "-f", "{{.Version}} {{.Replace}}", "dagger.io/dagger"))
	if len(got) != 2 || got[1] != "<nil>" || !strings.HasSuffix(got[0], "-"+lib[:12]) {
		t.Fatalf("dagger.io/dagger after go get @%s = %v, want the lib commit's pseudo-version, not replaced", lib, got)
	}
	if err := os.MkdirAll(filepath.Join(mod, "internal", "dagger"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The engine builds the module's main package; the stand-in takes the generated code's
	// place, aliasing the SDK that go.mod now names.
	run("build", "-overlay=internal/testkit/daggerstandin/overlay.json", "-o", os.DevNull, ".")

	// The engine's Go caches hold the lib SDK compiled with the versions its own go.mod
	// requires. A module that selects another version of any module the SDK is built from
	// (a newer golang.org/x/sys, gqlparser) recompiles that module and every SDK package
	// above it, dagger.io/dagger included, on every fresh engine. Where the generated code's
	// own requirements raise one (otel-go needs OpenTelemetry v1.43, the SDK v1.41), every
	// module recompiles it, and the bare module's version is the one to keep.
	var dl struct{ GoMod string }
	if err := json.Unmarshal([]byte(run("mod", "download", "-json", "dagger.io/dagger@"+lib)), &dl); err != nil || dl.GoMod == "" {
		t.Fatalf("the lib SDK's go.mod: %v", err)
	}
	wants := map[string]string{}
	for _, r := range goModFile(t, dl.GoMod).Require {
		wants[r.Path] = r.Version
	}
	for _, r := range goModFile(t, filepath.Join(root, bareModule, "go.mod")).Require {
		wants[r.Path] = r.Version
	}
	// What the engine's warm-up compiles: the packages generated module code imports, and
	// golang.org/x/sys, below the telemetry, gRPC and HTTP/2 packages that code is built on
	// (a test-only dependency raising it recompiled all of those on every warm engine).
	deps := run("list", "-deps", "-f", "{{with .Module}}{{.Path}} {{.Version}}{{end}}",
		"dagger.io/dagger", "dagger.io/dagger/dag", "dagger.io/dagger/engineconn", "github.com/dagger/querybuilder", "github.com/vektah/gqlparser/v2/gqlerror",
		"golang.org/x/sys/unix")
	checked := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(deps), "\n") {
		path, version, _ := strings.Cut(line, " ")
		want, ok := wants[path]
		if !ok || path == "dagger.io/dagger" || checked[path] {
			continue
		}
		checked[path] = true
		if version != want {
			t.Errorf("the module selects %s %s, the engine's lib SDK and a bare module are built with %s: every fresh engine then recompiles the SDK; keep %s at %s (downgrade what requires more)", path, version, want, path, want)
		}
	}
	if len(checked) == 0 {
		t.Fatalf("no module of the SDK's build graph was compared:\n%s", deps)
	}
}

// bareModule is the module bench/moduleload.sh compares Shipyard with, pinned as Shipyard is.
const bareModule = "bench/baremodule"

// codegenImportsFile keeps go.mod's requirements of the generated code's modules.
const codegenImportsFile = "engine_codegen_imports.go"

// When the engine loads a module it writes the generated code, then runs in the module
// (cmd/codegen/generator/go: syncModReplaceAndTidy, then ensureDaggerPackage): the Go SDK's
// requirements raised in go.mod, `go mod edit -replace` for each of the SDK's replaces whose
// module go.mod requires, `go get dagger.io/dagger@<lib>`, `go mod tidy`, and `go get
// dagger.io/dagger@<lib> github.com/dagger/querybuilder`. A package of the generated code
// that go.mod does not provide makes tidy look it up at the day's @latest, so a module that
// loaded yesterday can fail today (otel-go v1.47.1 on 2026-12-06: an import cycle with the
// SDK's replace of otel/log). This test runs that sequence offline, on a copy of Shipyard and
// on the bench's bare module with the generated code's imports added, and fails when tidy
// would look anything up or change a requirement.
func TestEngineCodegenResolvesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the engine's codegen sequence on two copies of modules")
	}
	root := corpus.RepoRoot(t)
	goproxyDir := kitGoproxy(t, root)
	dagger := daggerSource(t)
	lib := engineLibVersion(t, dagger)
	imports := generatedImports(t, dagger)
	// The modules Dagger v0.21.8 is built with: the versions its generated code was tested on.
	daggerPins := map[string]string{}
	for _, r := range goModFile(t, filepath.Join(dagger, "go.mod")).Require {
		daggerPins[r.Path] = r.Version
	}
	sdk := goModFile(t, sdkGoMod(t, root))

	for _, mod := range []string{".", bareModule} {
		t.Run(mod, func(t *testing.T) {
			dir := copyModuleSource(t, filepath.Join(root, mod))
			if got := importsOf(t, filepath.Join(dir, codegenImportsFile)); strings.Join(got, " ") != strings.Join(imports, " ") {
				t.Fatalf("%s imports %v, the generated code of Dagger v0.21.8 %v: list exactly the generated code's packages, so go.mod keeps their modules", filepath.Join(mod, codegenImportsFile), got, imports)
			}
			online := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
			if out, err := goIn(dir, online, "mod", "download"); err != nil {
				t.Fatalf("go mod download: %v\n%s", err, out)
			}
			// Tidy also loads the tests of dependencies (gopkg.in/check.v1 for yaml.v3's),
			// which a fresh machine's module cache lacks: the same sequence online, on a copy
			// thrown away, fetches each at the version the graph names. A query at @latest
			// still fails offline below, which is what the test looks for.
			offline := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOSUMDB=off",
				"GOPROXY=file://"+filepath.ToSlash(goproxyDir)+",off")
			warm := copyModuleSource(t, filepath.Join(root, mod))
			if err := os.WriteFile(filepath.Join(warm, "zz_generated_imports.go"), []byte(generatedImportsFile(imports)), 0o644); err != nil {
				t.Fatal(err)
			}
			// The kit's proxy first: it alone serves the SDK's lib version, which the checksum
			// database does not know.
			kitFirst := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GONOSUMDB=dagger.io",
				"GOPROXY=file://"+filepath.ToSlash(goproxyDir)+","+strings.TrimSpace(goEnv(t, "GOPROXY")))
			if log, err := engineCodegen(warm, kitFirst, lib, goModFile(t, filepath.Join(warm, "go.mod")), sdk); err != nil {
				t.Logf("the sequence online, to fill the module cache: %v\n%s", err, log)
			}

			// Each module that provides a generated package is at Dagger v0.21.8's version.
			args := append([]string{"list", "-e", "-tags=shipyard_codegen", "-f", "{{.ImportPath}} {{with .Module}}{{.Path}} {{.Version}}{{end}}"}, imports...)
			out, err := goIn(dir, offline, args...)
			if err != nil {
				t.Fatalf("go list of the generated code's packages: %v\n%s", err, out)
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				f := strings.Fields(line)
				if len(f) != 3 {
					continue
				}
				if want, ok := daggerPins[f[1]]; ok && f[2] != want {
					t.Errorf("%s/go.mod selects %s %s for the generated code's %s; Dagger v0.21.8 is built with %s: require %s %s", mod, f[1], f[2], f[0], want, f[1], want)
				}
			}

			if err := os.WriteFile(filepath.Join(dir, "zz_generated_imports.go"), []byte(generatedImportsFile(imports)), 0o644); err != nil {
				t.Fatal(err)
			}
			before := goModFile(t, filepath.Join(dir, "go.mod"))
			built, err := compiledModules(dir, offline)
			if err != nil {
				t.Fatal(err)
			}
			log, err := engineCodegen(dir, offline, lib, before, sdk)
			if looked := lookedUp(log); len(looked) > 0 || err != nil {
				for _, pkg := range looked {
					t.Errorf("the engine's go mod tidy looks up %s at @latest: %s", pkg, requireAdvice(pkg, daggerPins))
				}
				t.Fatalf("%s: the engine's codegen sequence: %v\n%s", mod, err, log)
			}
			// Tidy drops the requirements only excluded packages (tests, test kits) need,
			// which the engine never sees; what the module compiles must not move.
			rebuilt, err := compiledModules(dir, offline)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range versionChanges(built, rebuilt) {
				t.Errorf("%s: after the engine's codegen the module compiles %s: make go.mod require it so, so every load builds what was tested", mod, d)
			}
		})
	}
}

// generatedImportsFile is a Go file of package main importing the generated code's packages.
func generatedImportsFile(imports []string) string {
	generated := "package main\n\nimport (\n"
	for _, p := range imports {
		generated += "\t_ " + strconv.Quote(p) + "\n"
	}
	return generated + ")\n"
}

// engineCodegen runs what the engine's codegen runs in a module after writing its code,
// in order, and returns their output.
func engineCodegen(dir string, env []string, lib string, mod, sdk goMod) (string, error) {
	var log strings.Builder
	run := func(args ...string) error {
		out, err := goIn(dir, env, args...)
		log.WriteString("$ go " + strings.Join(args, " ") + "\n" + out)
		if err != nil {
			return fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
		}
		return nil
	}
	requires := map[string]string{}
	for _, r := range mod.Require {
		requires[r.Path] = r.Version
	}
	for _, r := range sdk.Require {
		if have, ok := requires[r.Path]; !ok || semver.Compare(have, r.Version) < 0 {
			requires[r.Path] = r.Version
			if err := run("mod", "edit", "-require="+r.Path+"@"+r.Version); err != nil {
				return log.String(), err
			}
		}
	}
	for _, r := range sdk.Replace {
		if _, ok := requires[r.New.Path]; ok {
			if err := run("mod", "edit", "-replace="+r.Old.Path+"="+r.New.Path+"@"+r.New.Version); err != nil {
				return log.String(), err
			}
		}
	}
	for _, args := range [][]string{
		{"get", "dagger.io/dagger@" + lib},
		{"mod", "tidy"},
		{"get", "dagger.io/dagger@" + lib, "github.com/dagger/querybuilder"},
		{"mod", "tidy"},
	} {
		if err := run(args...); err != nil {
			return log.String(), err
		}
	}
	return log.String(), nil
}

// lookedUp lists the packages go looked for a module for, in a log of go commands.
func lookedUp(log string) []string {
	var pkgs []string
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?:finding module for package|cannot find module providing package) (\S+?):?(?:\s|$)`).FindAllStringSubmatch(log, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			pkgs = append(pkgs, m[1])
		}
	}
	return pkgs
}

// requireAdvice names the module of Dagger v0.21.8's go.mod that provides pkg.
func requireAdvice(pkg string, daggerPins map[string]string) string {
	best := ""
	for path := range daggerPins {
		if (pkg == path || strings.HasPrefix(pkg, path+"/")) && len(path) > len(best) {
			best = path
		}
	}
	if best == "" {
		return "no module of Dagger v0.21.8's go.mod provides it; require the module that does, at the version Dagger's generated code was released with, and import the package in " + codegenImportsFile
	}
	return fmt.Sprintf("require %s %s (Dagger v0.21.8's version) and import %s in %s", best, daggerPins[best], pkg, codegenImportsFile)
}

// compiledModules maps each module a package of dir's main package compiles from (its
// dependencies, the generated code's imports included) to its version, dagger.io/dagger
// aside (codegen moves it to the lib commit on purpose).
func compiledModules(dir string, env []string) (map[string]string, error) {
	out, err := goIn(dir, env, "list", "-e", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}}{{end}}{{end}}", ".")
	if err != nil {
		return nil, fmt.Errorf("go list -deps: %w\n%s", err, out)
	}
	mods := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if path, version, ok := strings.Cut(strings.TrimSpace(line), " "); ok && path != "dagger.io/dagger" {
			mods[path] = version
		}
	}
	return mods, nil
}

// versionChanges lists the modules compiled at another version, or only before or after.
func versionChanges(before, after map[string]string) []string {
	var diffs []string
	for path, v := range before {
		if w, ok := after[path]; !ok {
			diffs = append(diffs, path+" "+v+" no more")
		} else if w != v {
			diffs = append(diffs, path+" "+w+", not "+v)
		}
	}
	for path, v := range after {
		if _, ok := before[path]; !ok {
			diffs = append(diffs, path+" "+v+" besides")
		}
	}
	sort.Strings(diffs)
	return diffs
}

// generatedImports lists the non-standard packages that Dagger's Go templates import.
func generatedImports(t *testing.T, dagger string) []string {
	t.Helper()
	templates := filepath.Join(dagger, "cmd", "codegen", "generator", "go", "templates", "src")
	seen := map[string]bool{}
	err := filepath.WalkDir(templates, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".tmpl") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, p := range importBlockPaths(string(b)) {
			// Standard library paths have no dot in their first element; the module's own
			// package ({{.PackageImport}}) and the standalone client's dagger.io/dagger are
			// not the module code's imports.
			if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") && !strings.Contains(p, "{{") && p != "dagger.io/dagger" {
				seen[p] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading Dagger's Go templates: %v", err)
	}
	var paths []string
	for p := range seen {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		t.Fatalf("no import in Dagger's Go templates under %s", templates)
	}
	return paths
}

// importBlockPaths reads the quoted paths of a Go (or Go template) file's import blocks.
func importBlockPaths(src string) []string {
	var paths []string
	for _, block := range regexp.MustCompile(`(?s)(?:^|\n)import \((.*?)\n\)`).FindAllStringSubmatch(src, -1) {
		for _, m := range regexp.MustCompile(`(?m)^\s*(?:[\w.]+\s+)?"([^"]+)"\s*$`).FindAllStringSubmatch(block[1], -1) {
			paths = append(paths, m[1])
		}
	}
	return paths
}

// importsOf lists a Go file's import paths, sorted.
func importsOf(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (it keeps go.mod's requirements of the generated code's modules)", err)
	}
	paths := importBlockPaths(string(b))
	sort.Strings(paths)
	return paths
}

// kitGoproxy is the engine kit's module proxy folder, which serves the lib version the Go
// module proxy refuses.
func kitGoproxy(t *testing.T, root string) string {
	t.Helper()
	kit := os.Getenv("SHIPYARD_ENGINE_KIT")
	if kit == "" {
		kit = filepath.Join(root, "..", "shared", "engine")
	}
	dir := filepath.Join(kit, "goproxy")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the engine kit's module proxy folder %s is missing, and CI is set", dir)
		}
		t.Skipf("the engine kit's module proxy folder (../shared/engine/goproxy) is absent: %v", err)
	}
	return dir
}

// daggerSource is the folder of github.com/dagger/dagger@v0.21.8 in the module cache.
func daggerSource(t *testing.T) string {
	t.Helper()
	return moduleDir(t, "github.com/dagger/dagger@v0.21.8")
}

// sdkGoMod is the go.mod of dagger.io/dagger v0.21.8, the SDK the engine's codegen is
// built with (the go.mod it embeds and raises modules' requirements to).
func sdkGoMod(t *testing.T, root string) string {
	t.Helper()
	return filepath.Join(moduleDir(t, "dagger.io/dagger@v0.21.8"), "go.mod")
}

func moduleDir(t *testing.T, pathAtVersion string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", pathAtVersion)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", pathAtVersion, err)
	}
	var info struct{ Dir string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		t.Fatalf("go mod download %s: no directory in %s (%v)", pathAtVersion, out, err)
	}
	return info.Dir
}

func goIn(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// engineLibVersion reads the SDK commit the engine's codegen pins from Dagger's source.
func engineLibVersion(t *testing.T, dagger string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dagger, "core", "sdk", "go_sdk.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`goSDKLibVersion\s*=\s*"([0-9a-f]{40})"`).FindSubmatch(src)
	if m == nil {
		t.Fatalf("no goSDKLibVersion commit in core/sdk/go_sdk.go")
	}
	return string(m[1])
}

// copyModule copies what git tracks (and would track) to a temporary folder.
func copyModule(t *testing.T, root string) string {
	t.Helper()
	return copyFiles(t, root, nil)
}

// copyModuleSource copies what the engine receives of the module at root: its files but
// those its dagger.json excludes.
func copyModuleSource(t *testing.T, root string) string {
	t.Helper()
	kept, _ := sourceFilter(t, root)
	return copyFiles(t, root, kept)
}

// copyFiles copies root's files that git tracks or would, those kept says (all when nil).
func copyFiles(t *testing.T, root string, kept func(file string) bool) string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dir := t.TempDir()
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if kept != nil && !kept(rel) {
			continue // the engine does not upload it: a package that imports one fails there
		}
		// Stat, not Lstat: a link is copied as the file it names (the bare module's list of
		// the generated code's imports is the root's, linked).
		info, err := os.Stat(filepath.Join(root, rel))
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the working tree, or not a file
		}
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type modVersion struct{ Path, Version string }

type goMod struct {
	Require []modVersion
	Replace []struct{ Old, New modVersion }
}

// goModFile reads a go.mod file as go mod edit -json does.
func goModFile(t *testing.T, file string) goMod {
	t.Helper()
	out, err := exec.Command("go", "mod", "edit", "-json", file).Output()
	if err != nil {
		t.Fatalf("go mod edit -json %s: %v", file, err)
	}
	var f goMod
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatalf("go mod edit -json %s: %v", file, err)
	}
	return f
}

// goModReplaces lists go.mod's replace directives, as go mod edit reads them.
func goModReplaces(t *testing.T, dir string) []struct{ Old, New modVersion } {
	t.Helper()
	return goModFile(t, filepath.Join(dir, "go.mod")).Replace
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(fmt.Errorf("go env %s: %w", name, err))
	}
	return string(out)
}

// Every module the bare module builds with (the generated code's telemetry, gRPC and HTTP/2
// packages, and the modules below them) stays at the bare module's version: a requirement of
// Shipyard's that raises one (actionlint v1.7.12 raised x/net, and with it x/text) makes
// every engine that loaded another module recompile gRPC, the OpenTelemetry exporters and
// the SDK for Shipyard's first call, about 10 s of a warm load. bench/baremodule/go.mod is
// itself held to Dagger v0.21.8's versions by TestEngineCodegenResolvesNothing.
func TestBuildListKeepsABareModulesVersions(t *testing.T) {
	root := corpus.RepoRoot(t)
	bare := goModFile(t, filepath.Join(root, bareModule, "go.mod")).Require
	if len(bare) == 0 {
		t.Fatalf("%s/go.mod requires nothing", bareModule)
	}
	args := []string{"list", "-m", "-f", "{{.Path}} {{.Version}}"}
	for _, r := range bare {
		args = append(args, r.Path)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	selected := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, version, _ := strings.Cut(line, " ")
		selected[path] = version
	}
	for _, r := range bare {
		if got := selected[r.Path]; got != r.Version {
			t.Errorf("the module selects %s %s, the bare module %s: keep it at %s (downgrade what requires more; `go mod graph | grep ' %s@%s'` names it)", r.Path, got, r.Version, r.Version, r.Path, got)
		}
	}
}

func TestVersionChanges(t *testing.T) {
	before := map[string]string{"a": "v1.0.0", "b": "v1.2.0", "c": "v0.1.0"}
	after := map[string]string{"a": "v1.0.0", "b": "v1.3.0", "d": "v2.0.0"}
	got := strings.Join(versionChanges(before, after), "; ")
	if want := "b v1.3.0, not v1.2.0; c v0.1.0 no more; d v2.0.0 besides"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got := versionChanges(before, before); len(got) != 0 {
		t.Errorf("no change gave %v", got)
	}
}
