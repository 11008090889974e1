//go:build realengine

package realengine

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models/versions/versionstest"
)

// Two calls with different --pin images mount different cache volumes, on a real engine.
// The probe is model-versions --check, whose ETag cache lives in a volume keyed by its
// trust level and its pins: a second call with the same pin is answered by 304s only (the
// volume kept the cache), a call with another pin starts cold (its own, empty volume), and
// the first pin's volume is untouched by it.
func TestOwnPinMountsItsOwnCacheVolume(t *testing.T) {
	t.Parallel()
	w := versionstest.New(t)
	api := publishGitHub(t, w.GitHub)
	pypi := serve(t, proxyTo(t, w.PyPI.URL()))
	env := map[string]string{"GHTOKEN": versionstest.Token}
	// The same image under another reference: the pins differ, the image does not.
	repo, digest, ok := strings.Cut(baseImage, "@")
	if !ok {
		t.Fatalf("the base image %q is not pinned by digest", baseImage)
	}
	own := repo + ":own-pin@" + digest
	check := func(pin string) (notModified, full int) {
		t.Helper()
		before := len(w.GitHub.Requests())
		call(t, env, "--repo", versionstest.Repository, "--github-api", api, "--github-token", "env://GHTOKEN",
			"--pin", "python-3.13="+pin, "model-versions", "--pypi-url", pypi+"/", "--check")
		for _, r := range w.GitHub.Requests()[before:] {
			if r.NotModified {
				notModified++
			} else {
				full++
			}
		}
		return notModified, full
	}

	if n, _ := check(baseImage); n != 0 {
		t.Fatalf("the first call got %d 304s from an empty volume", n)
	}
	if n, full := check(baseImage); n == 0 || full != 0 {
		t.Errorf("the same pin again: %d 304s and %d full answers; want only 304s (one volume)", n, full)
	}
	if n, full := check(own); n != 0 || full == 0 {
		t.Errorf("another pin: %d 304s and %d full answers; want a cold start (its own volume)", n, full)
	}
	if n, full := check(baseImage); n == 0 || full != 0 {
		t.Errorf("the first pin after the other: %d 304s and %d full answers; want only 304s", n, full)
	}
}

// tesk-core with Shipyard as a toolchain: the whole `dagger check` passes on tesk-core's
// tree. check-artifacts, a check of the Cloudcoil model repositories, skips there instead
// of failing every run. The checks that need PyPI, Trivy's database or a k3s cluster
// (lint, test-check, docs, scan-check, end-to-end) cannot run on this offline engine; the
// project lists them in the toolchain's ignoreChecks, and the test checks that exactly
// the others remain.
func TestDaggerCheckPassesInTeskCoreWithShipyardAsAToolchain(t *testing.T) {
	t.Parallel()
	project := imageProject(t)
	if err := copyTree(repoRoot, filepath.Join(project, "toolchains", "shipyard")); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = project
		cmd.Env = append(os.Environ(), gitIdentity("t", "t@example.org")...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return string(out) + "\n" + tail(stderr.String(), 60), err
		}
		return string(out) + stderr.String(), nil
	}
	must := func(name string, args ...string) string {
		t.Helper()
		out, err := run(name, args...)
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return out
	}
	must("git", "init", "-q")
	must(daggerCLI, "init")
	must("git", "add", "-A")
	must("git", "commit", "-q", "-m", "tesk-core with Shipyard vendored as a toolchain")
	must(daggerCLI, "--progress=plain", "toolchain", "install", "./toolchains/shipyard")

	path := filepath.Join(project, "dagger.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var manifest map[string]any
	if err := json.Unmarshal(raw, &manifest); err != nil {
		t.Fatal(err)
	}
	toolchains, _ := manifest["toolchains"].([]any)
	if len(toolchains) != 1 {
		t.Fatalf("dagger.json toolchains: %s", raw)
	}
	offline := []string{"lint", "test-check", "docs", "scan-check", "end-to-end"}
	// A pattern that matches no check excludes nothing (core/schema/workspace.go), so both
	// spellings of each name are given: bare, and with the toolchain's prefix.
	var ignore []string
	for _, c := range offline {
		ignore = append(ignore, c, "shipyard:"+c)
	}
	toolchains[0].(map[string]any)["ignoreChecks"] = ignore
	if raw, err = json.MarshalIndent(manifest, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}

	listed := must(daggerCLI, "check", "-l")
	for _, c := range []string{"shipyard:check-artifacts", "shipyard:pr-title"} {
		if !strings.Contains(listed, c) {
			t.Errorf("dagger check -l does not list %s:\n%s", c, listed)
		}
	}
	for _, c := range offline {
		if strings.Contains(listed, "shipyard:"+c+"\n") || strings.Contains(listed, "shipyard:"+c+" ") {
			t.Errorf("ignoreChecks left %s in:\n%s", c, listed)
		}
	}
	out, err := run(daggerCLI, "--progress=plain", "check")
	if err != nil {
		t.Fatalf("dagger check failed on tesk-core's tree: %v\n%s", err, out)
	}
	if !strings.Contains(out, "check-artifacts") {
		t.Errorf("dagger check did not run check-artifacts:\n%s", tail(out, 40))
	}
	t.Logf("dagger check:\n%s", tail(out, 30))
}

// A Cloudcoil model repository with Shipyard as a toolchain: tesk-core's checks skip on
// its tree, so `dagger check` passes. check-artifacts, the model repository's own check,
// needs PyPI to build the package and cannot run on this offline engine; the project lists
// it in ignoreChecks.
func TestDaggerCheckPassesInAModelRepositoryWithShipyardAsAToolchain(t *testing.T) {
	t.Parallel()
	project := fixtures.ModelRepo(t, nil)
	if err := copyTree(repoRoot, filepath.Join(project, "toolchains", "shipyard")); err != nil {
		t.Fatal(err)
	}
	must := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = project
		cmd.Env = append(os.Environ(), gitIdentity("t", "t@example.org")...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s\n%s", name, strings.Join(args, " "), err, out, tail(stderr.String(), 60))
		}
		return string(out) + stderr.String()
	}
	if _, err := os.Stat(filepath.Join(project, ".git")); err != nil {
		must("git", "init", "-q")
	}
	must(daggerCLI, "init")
	must("git", "add", "-A")
	must("git", "commit", "-q", "-m", "a model repository with Shipyard vendored as a toolchain")
	must(daggerCLI, "--progress=plain", "toolchain", "install", "./toolchains/shipyard")
	path := filepath.Join(project, "dagger.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var manifest map[string]any
	if err := json.Unmarshal(raw, &manifest); err != nil {
		t.Fatal(err)
	}
	toolchains, _ := manifest["toolchains"].([]any)
	if len(toolchains) != 1 {
		t.Fatalf("dagger.json toolchains: %s", raw)
	}
	toolchains[0].(map[string]any)["ignoreChecks"] = []string{"check-artifacts", "shipyard:check-artifacts"}
	if raw, err = json.MarshalIndent(manifest, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	listed := must(daggerCLI, "check", "-l")
	for _, c := range []string{"shipyard:lint", "shipyard:test-check", "shipyard:docs", "shipyard:scan-check", "shipyard:end-to-end"} {
		if !strings.Contains(listed, c) {
			t.Errorf("dagger check -l does not list %s:\n%s", c, listed)
		}
	}
	out := must(daggerCLI, "--progress=plain", "check")
	t.Logf("dagger check:\n%s", tail(out, 30))
}
