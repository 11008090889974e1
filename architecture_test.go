package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"dagger/shipyard/pipelines/ci/artifact"
)

// Neither system imports the other: tesk-core's pipelines and Cloudcoil's models share only
// the small packages under internal/ (pins, jobs, trust, pyproject, reponame, flow, …).
func TestSystemsDoNotImportEachOther(t *testing.T) {
	for pkgs, forbidden := range map[string]string{
		"./models/...":    "dagger/shipyard/pipelines/",
		"./pipelines/...": "dagger/shipyard/models/",
	} {
		for _, dep := range goListDeps(t, "-test", pkgs) {
			if strings.HasPrefix(dep, forbidden) {
				t.Errorf("%s depends on %s", pkgs, dep)
			}
		}
	}
}

// Publishing belongs to neither system: it works over artifacts and a scanner
// (publish.Artifact, publish.Scanner), and each system is a producer of them
// (pipelines/ci/artifact for tesk-core). The publish package and its test kit import
// neither tesk-core's CI pipeline nor Cloudcoil's models, nor tesk-core's scan policy: a
// scanner's verdict reaches publishing as a publish.ScanVerdict.
func TestPublishImportsNeitherSystem(t *testing.T) {
	for _, dep := range goListDeps(t, "./pipelines/publish", "./pipelines/publish/publishtest") {
		if strings.HasPrefix(dep, "dagger/shipyard/pipelines/ci") || strings.HasPrefix(dep, "dagger/shipyard/models") ||
			dep == "dagger/shipyard/internal/trivy" {
			t.Errorf("publishing depends on %s", dep)
		}
	}
}

// Publishing writes no system's tag names: tesk-core's latest, dev and sha-<commit> are its
// tag policy (pipelines/ci/artifact), given with its target, so no string of publishing's
// code or of the registry command it runs is one of them. Comments may name them as
// examples.
func TestPublishingWritesNoSystemsTagNames(t *testing.T) {
	tesk := artifact.Tags()
	names := []string{tesk.Latest, tesk.BranchTag, tesk.Branch, tesk.CommitPrefix}
	for _, dir := range []string{"pipelines/publish", "supplychain/registry", "supplychain/wire", "supplychain/cmd/registry"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(parsed, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				value, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				for _, name := range names {
					if value == name || strings.Contains(value, name+"<") || strings.Contains(value, name+"$") {
						t.Errorf("%s writes tesk-core's tag name %q in %s: take it from the target's tag policy", f, name, lit.Value)
					}
				}
				return true
			})
		}
	}
}

// The module binary links no GitHub client: every job compiles it before its first
// function runs, and go-github's one large package led its build's critical path. The
// GitHub command (cmd/github, built in the engine only when a function first needs GitHub)
// makes the API calls; the module has their plain data (internal/github) and asks
// (internal/githubcmd).
func TestModuleLinksNoGitHubClient(t *testing.T) {
	requireModuleLinksNone(t, "github.com/google/go-github/", "dagger/shipyard/internal/githubclient")
}

// goListDeps is what go list -deps lists for args, failing t when it lists nothing.
func goListDeps(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list -deps %v: %v", args, err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatalf("go list -deps %v listed nothing", args)
	}
	return deps
}

// TestModuleLinksNoPublishingClients holds the module's load light: every job compiles the
// module binary before its first function runs, and only publishing talks to a registry,
// which the registry command of the supplychain module does (built in the engine, only
// when a publishing function runs). go-containerregistry would bring docker/cli's config
// and stargz along; signing (sigstore-go) is the signing command's, likewise.
func TestModuleLinksNoPublishingClients(t *testing.T) {
	requireModuleLinksNone(t, "github.com/google/go-containerregistry/", "github.com/docker/", "github.com/containerd/stargz-snapshotter/", "github.com/sigstore/")
}

// The module binary links no test tooling: the simulators, the check of the GitHub
// simulator against GitHub's API description (kin-openapi) and the engine double's
// .gitignore rules (go-git's, as the engine's) stay in tests, so the module Dagger compiles
// on a user's first call does not grow with them.
func TestModuleLinksNoTestTooling(t *testing.T) {
	requireModuleLinksNone(t, "github.com/getkin/", "github.com/go-git/", "dagger/shipyard/internal/testkit/")
}

// requireModuleLinksNone fails t for each package the module package depends on whose
// import path starts with one of banned.
func requireModuleLinksNone(t *testing.T, banned ...string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-overlay=internal/testkit/daggerstandin/overlay.json", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps .: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list -deps . listed nothing")
	}
	for _, dep := range deps {
		for _, prefix := range banned {
			if strings.HasPrefix(dep, prefix) {
				t.Errorf("the module package depends on %s", dep)
			}
		}
	}
}
