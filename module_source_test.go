package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moby/patternmatcher"

	"dagger/shipyard/internal/demo"
	"dagger/shipyard/internal/githubcmd"
)

// The engine loads the module's source through dagger.json's include patterns, and its
// codegen then runs `go mod tidy` over every Go package that source holds: each module
// those packages import is downloaded before the module binary is built. So the source
// holds the packages a build in the engine reads (the module binary, the GitHub command,
// the demo server and the supplychain module) and nothing else: no test file and no
// test-only package, whose imports (actionlint, go-containerregistry's test use, the
// engine double's GraphQL parser, …) would otherwise be downloaded on every fresh engine.
func TestModuleSourceHoldsWhatTheEngineBuildsAndNoTests(t *testing.T) {
	kept := moduleSourceFilter(t)

	needed := engineBuildFiles(t)
	for _, f := range needed {
		if !kept(f) {
			t.Errorf("%s is read by a build in the engine, but dagger.json's include leaves it out of the module's source: remove the pattern that drops it", f)
		}
	}

	neededDirs := map[string]bool{}
	for _, f := range needed {
		neededDirs[path.Dir(f)] = true
	}
	for _, f := range trackedFiles(t) {
		if !kept(f) || !strings.HasSuffix(f, ".go") {
			continue
		}
		switch {
		case strings.HasSuffix(f, "_test.go"):
			t.Errorf("%s is a test file, yet dagger.json's include keeps it in the module's source", f)
		case !neededDirs[path.Dir(f)]:
			t.Errorf("%s is in the module's source, but no build in the engine reads its package: add \"!%s\" to dagger.json's include, so that the engine neither loads it nor has codegen's go mod tidy download its imports", f, path.Dir(f))
		}
	}
}

// The filter's reading of the patterns is the engine's: a test file and a test-only
// package are out, the module's own code and its embedded files are in.
func TestModuleSourceFilterReadsThePatternsAsTheEngineDoes(t *testing.T) {
	kept := moduleSourceFilter(t)
	for _, tc := range []struct {
		file string
		want bool
	}{
		{"dagger.json", true},
		{"go.mod", true},
		{"main.go", true},
		{"main_test.go", false},
		{"models/genrepo/template/ci.yml", true},
		{"models/modeltest/modeltest.go", false},
		{"internal/demoworld/githubsim/contract.go", true},
		{"internal/testkit/engine/engine.go", false},
		{"internal/realengine/realengine.go", false},
		{"supplychain/cmd/registry/main.go", true},
		{"supplychain/registry/push_test.go", false},
		{"docs/architecture.md", false},
		{"pipelines/publish/publishtest/world.go", false},
		{"internal/flow/flowtest/flowtest.go", false},
		{"supplychain/registry/latest.go", true},
		{"internal/functions/gen/main.go", false},
		{"internal/githubcmd/gen/main.go", false},
		{"internal/functions/declarations.go", true},
	} {
		if got := kept(tc.file); got != tc.want {
			t.Errorf("kept(%s) = %v, want %v", tc.file, got, tc.want)
		}
	}
}

// moduleSourceFilter reports whether a file of the repository (a slash path from its
// root) is in the module's source as the engine loads it: v0.21.8 loads a local module's
// context directory with the includes "./dagger.json" and "*", then dagger.json's own
// (core/schema/modulesource.go), and matches them with moby/patternmatcher, whose last
// matching pattern decides (internal/fsutil's filter).
func moduleSourceFilter(t *testing.T) func(file string) bool {
	t.Helper()
	kept, patterns := sourceFilter(t, ".")
	if patterns == 0 {
		t.Fatal("dagger.json has no include patterns: the engine would load, and tidy, every test package")
	}
	return kept
}

// sourceFilter is moduleSourceFilter for the module at root, with the number of include
// patterns its dagger.json gives.
func sourceFilter(t *testing.T, root string) (func(file string) bool, int) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "dagger.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Include []string `json:"include"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf("%s: %v", filepath.Join(root, "dagger.json"), err)
	}
	m, err := patternmatcher.New(append([]string{"./dagger.json", "*"}, cfg.Include...))
	if err != nil {
		t.Fatalf("dagger.json's include: %v", err)
	}
	return func(file string) bool {
		ok, err := m.MatchesOrParentMatches(filepath.FromSlash(file))
		if err != nil {
			t.Fatalf("matching %s: %v", file, err)
		}
		return ok
	}, len(cfg.Include)
}

// engineBuildFiles lists, as slash paths from the repository's root, every file a build in
// the engine reads: the go.mod and go.sum of both modules, and the Go and embedded files of
// each package the module binary, the GitHub command, the demo server and the supplychain
// commands depend on within the repository. Files the engine's codegen writes are left out.
func engineBuildFiles(t *testing.T) []string {
	t.Helper()
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"go.mod", "go.sum", "supplychain/go.mod", "supplychain/go.sum"}
	for _, list := range []struct {
		module string
		args   []string
	}{
		{".", []string{"-overlay=internal/testkit/daggerstandin/overlay.json", ".", githubcmd.Package, demo.Package}},
		{"supplychain", []string{"./cmd/..."}},
	} {
		args := append([]string{"-C", list.module, "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}\t{{join .GoFiles \" \"}} {{join .EmbedFiles \" \"}}{{end}}{{end}}"}, list.args...)
		out, err := exec.Command("go", args...).Output()
		if err != nil {
			t.Fatalf("go %v: %v", args, err)
		}
		for line := range strings.Lines(string(out)) {
			dir, names, ok := strings.Cut(strings.TrimSpace(line), "\t")
			if !ok {
				continue
			}
			rel, err := filepath.Rel(root, dir)
			if err != nil {
				t.Fatal(err)
			}
			for name := range strings.FieldsSeq(names) {
				f := filepath.ToSlash(filepath.Join(rel, name))
				if _, err := os.Stat(f); err != nil {
					continue // written by the engine's codegen (internal/dagger, here a stand-in)
				}
				files = append(files, f)
			}
		}
	}
	if len(files) < 50 {
		t.Fatalf("go list found only %d files the engine builds from", len(files))
	}
	slices.Sort(files)
	return slices.Compact(files)
}

// trackedFiles lists the repository's files, as the engine would see them uploaded.
func trackedFiles(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	return strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
}
