package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/corpus"
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
	kit := os.Getenv("SHIPYARD_ENGINE_KIT")
	if kit == "" {
		kit = filepath.Join(root, "..", "shared", "engine")
	}
	// The kit serves the lib version, which the Go module proxy refuses.
	goproxyDir := filepath.Join(kit, "goproxy")
	if _, err := os.Stat(goproxyDir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the engine kit's module proxy folder %s is missing, and CI is set", goproxyDir)
		}
		t.Skipf("the engine kit's module proxy folder (../shared/engine/goproxy) is absent: %v", err)
	}

	lib := engineLibVersion(t)
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
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = mod, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return out.String()
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
	// above it, dagger.io/dagger included, on every fresh engine.
	var dl struct{ GoMod string }
	if err := json.Unmarshal([]byte(run("mod", "download", "-json", "dagger.io/dagger@"+lib)), &dl); err != nil || dl.GoMod == "" {
		t.Fatalf("the lib SDK's go.mod: %v", err)
	}
	var sdkMod struct{ Require []modVersion }
	if err := json.Unmarshal([]byte(run("mod", "edit", "-json", dl.GoMod)), &sdkMod); err != nil {
		t.Fatalf("the lib SDK's go.mod: %v", err)
	}
	sdkWants := map[string]string{}
	for _, r := range sdkMod.Require {
		sdkWants[r.Path] = r.Version
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
		want, ok := sdkWants[path]
		if !ok || path == "dagger.io/dagger" || checked[path] {
			continue
		}
		checked[path] = true
		if version != want {
			t.Errorf("the module selects %s %s, the engine's lib SDK is built with %s: every fresh engine then recompiles the SDK; keep %s at %s (downgrade what requires more)", path, version, want, path, want)
		}
	}
	if len(checked) == 0 {
		t.Fatalf("no module of the SDK's build graph was compared:\n%s", deps)
	}
}

// engineLibVersion reads the SDK commit the engine's codegen pins from Dagger's source.
func engineLibVersion(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", "github.com/dagger/dagger@v0.21.8")
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download github.com/dagger/dagger@v0.21.8: %v", err)
	}
	var info struct{ Dir string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		t.Fatalf("go mod download: no directory in %s (%v)", out, err)
	}
	src, err := os.ReadFile(filepath.Join(info.Dir, "core", "sdk", "go_sdk.go"))
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
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dir := t.TempDir()
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		info, err := os.Lstat(filepath.Join(root, rel))
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

// goModReplaces lists go.mod's replace directives, as go mod edit reads them.
func goModReplaces(t *testing.T, dir string) []struct{ Old, New modVersion } {
	t.Helper()
	cmd := exec.Command("go", "mod", "edit", "-json")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod edit -json: %v", err)
	}
	var f struct {
		Replace []struct{ Old, New modVersion }
	}
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatalf("go mod edit -json: %v", err)
	}
	return f.Replace
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(fmt.Errorf("go env %s: %w", name, err))
	}
	return string(out)
}

// The modules under the generated code's telemetry and gRPC packages stay at the versions a
// bare module gets on a v0.21.8 engine (the go.mod `dagger init --sdk=go` writes there): a
// requirement of Shipyard's that raises one (actionlint v1.7.12 raised x/net, and with it
// x/text) makes every engine that loaded another module recompile gRPC, the OpenTelemetry
// exporters and the SDK for Shipyard's first call, about 10 s of a warm load. Moving to
// another engine version means reading these again from a bare module's go.mod.
func TestBuildListKeepsABareModulesVersions(t *testing.T) {
	bare := map[string]string{
		"golang.org/x/sys":  "v0.42.0",
		"golang.org/x/net":  "v0.51.0",
		"golang.org/x/text": "v0.34.0",
	}
	for path, want := range bare {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", path).Output()
		if err != nil {
			t.Fatalf("go list -m %s: %v", path, err)
		}
		if got := strings.TrimSpace(string(out)); got != want {
			t.Errorf("the module selects %s %s, a bare module on the engine %s: keep it at %s (downgrade what requires more; `go mod graph | grep ' %s@%s'` names it)", path, got, want, want, path, got)
		}
	}
}
