//go:build realengine

package realengine

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/modsurface"
)

// tesk-core adopts Shipyard as a Dagger toolchain: a copy of Shipyard installed inside the
// project's repository (a remote github.com/…@<sha> source cannot be reached offline).
// Then `dagger call shipyard …` runs on the project's own tree, and `dagger check` runs
// Shipyard's checks as shipyard:<check>.
func TestShipyardAsAToolchain(t *testing.T) {
	t.Parallel()
	project := imageProject(t)
	write(t, filepath.Join(project, "pyproject.toml"), "[project]\nname = \"teskcore\"\ndynamic = [\"version\"]\n"+
		"requires-python = \">=3.11\"\nclassifiers = [\n  \"Programming Language :: Python :: 3.11\",\n  \"Programming Language :: Python :: 3.12\",\n]\n")
	if err := copyTree(repoRoot, filepath.Join(project, "toolchains", "shipyard")); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = project
		cmd.Env = append(os.Environ(), gitIdentity("t", "t@example.org")...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s\n%s", name, strings.Join(args, " "), err, out, tail(stderr.String(), 40))
		}
		return string(out)
	}
	run("git", "init", "-q")
	run(daggerCLI, "init")
	run("git", "add", "-A")
	run("git", "commit", "-q", "-m", "tesk-core with Shipyard vendored as a toolchain")
	run(daggerCLI, "--progress=plain", "toolchain", "install", "./toolchains/shipyard")
	manifest, err := os.ReadFile(filepath.Join(project, "dagger.json"))
	if err != nil || !strings.Contains(string(manifest), `"toolchains"`) {
		t.Fatalf("dagger.json after toolchain install:\n%s (%v)", manifest, err)
	}

	// The README's commands for a project with Shipyard as a toolchain, exactly as printed:
	// --source is the caller's tree (the project's pyproject.toml and Dockerfiles).
	printed := readmeRuns(t, "TestShipyardAsAToolchain")
	shell := func(line string) string {
		t.Helper()
		cmd := exec.Command("bash", "-c", line)
		cmd.Dir = project
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(daggerCLI)+":"+os.Getenv("PATH"))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s\n%s", line, err, out, tail(stderr.String(), 40))
		}
		return string(out)
	}
	for _, want := range []struct{ cmd, says string }{
		{"dagger call shipyard pr-title --title fix(filer): retry uploads", `PR title ok: "fix(filer): retry uploads"`},
		{"dagger call shipyard python-versions", `["3.11","3.12"]`},
		{"dagger call shipyard images --version 0.11.0", "Container"},
	} {
		line, ok := printed[want.cmd]
		if !ok {
			t.Fatalf("the README prints no %q", want.cmd)
		}
		if out := shell(line); !strings.Contains(out, want.says) {
			t.Errorf("%s printed:\n%s", line, out)
		}
	}

	checks := run(daggerCLI, "check", "-l")
	for _, c := range []string{"shipyard:lint", "shipyard:pr-title", "shipyard:scan-check"} {
		if !strings.Contains(checks, c) {
			t.Errorf("dagger check -l does not list %s:\n%s", c, checks)
		}
	}
	run(daggerCLI, "check", "shipyard:pr-title")

	// The constructor's flags go after the toolchain's name, as the README says; a default
	// the project keeps is a customization of the toolchain's constructor in dagger.json.
	if plan := run(daggerCLI, "call", "shipyard", "--demo", "--org", "forkorg", "release-plan", "--tag", "v0.11.0"); !strings.Contains(plan, "forkorg/tesk-core-filer:") {
		t.Errorf("--org after shipyard: the plan names no forkorg images:\n%s", plan)
	}
	customize(t, filepath.Join(project, "dagger.json"), "shipyard", map[string]any{"argument": "org", "default": "customorg"})
	if plan := run(daggerCLI, "call", "shipyard", "--demo", "release-plan", "--tag", "v0.11.0"); !strings.Contains(plan, "customorg/tesk-core-filer:") {
		t.Errorf("--org from dagger.json's customizations: the plan names no customorg images:\n%s", plan)
	}
}

// readmeRuns are the commands of the README that test runs (realengine.DocumentedRuns), as
// printed there, by their words.
func readmeRuns(t *testing.T, test string) map[string]string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	runs := DocumentedRuns()
	for _, c := range modsurface.MarkdownCommands("README.md", string(readme)) {
		key := "dagger " + c.Verb + " " + strings.Join(c.Words, " ")
		if runs[key] == test {
			out[key] = c.Raw
		}
	}
	return out
}

// customize adds a customization of the constructor of the toolchain name to dagger.json.
func customize(t *testing.T, path, name string, c map[string]any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var manifest map[string]any
	if err := json.Unmarshal(b, &manifest); err != nil {
		t.Fatal(err)
	}
	toolchains, _ := manifest["toolchains"].([]any)
	found := false
	for _, tc := range toolchains {
		if m, ok := tc.(map[string]any); ok && m["name"] == name {
			list, _ := m["customizations"].([]any)
			m["customizations"] = append(list, c)
			found = true
		}
	}
	if !found {
		t.Fatalf("dagger.json has no toolchain %s:\n%s", name, b)
	}
	if b, err = json.MarshalIndent(manifest, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
