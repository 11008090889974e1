//go:build realengine

package realengine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
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

	// --source is the caller's tree: the project's pyproject.toml, not Shipyard's.
	versions := run(daggerCLI, "call", "shipyard", "python-versions")
	if strings.TrimSpace(versions) != `["3.11","3.12"]` {
		t.Errorf("python-versions on the project's tree = %q", versions)
	}
	images := run(daggerCLI, "call", "shipyard", "images", "--version", "0.11.0")
	if strings.Count(images, "Container") < 2 {
		t.Errorf("images built from the project's Dockerfiles:\n%s", images)
	}

	checks := run(daggerCLI, "check", "-l")
	for _, c := range []string{"shipyard:lint", "shipyard:pr-title", "shipyard:scan-check"} {
		if !strings.Contains(checks, c) {
			t.Errorf("dagger check -l does not list %s:\n%s", c, checks)
		}
	}
	run(daggerCLI, "check", "shipyard:pr-title")
}
