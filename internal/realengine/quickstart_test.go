//go:build realengine

package realengine

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The README's two commands, run exactly as written, from the checkout: the first sets up
// the CLI and the engine (already running here, so it only checks its caches and puts
// dagger on PATH); the second prints the plan the README shows, from the demo server that
// --demo builds and runs as a Dagger service: no server runs outside the engine. Then the
// release demo's and the Cloudcoil demo's commands print their README blocks.
func TestReadmeQuickStart(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	commands, ok := readmeBlock(string(readme), "```sh\n", "scripts/engine up")
	if !ok {
		t.Fatal("README.md has no sh block starting with scripts/engine up")
	}
	want, ok := readmeBlock(string(readme), "```text\n", "Release plan for ")
	if !ok {
		t.Fatal("README.md has no text block with the release plan")
	}
	lines := strings.Split(strings.TrimSpace(commands), "\n")
	if len(lines) != 2 {
		t.Fatalf("the quick start has %d commands, want 2:\n%s", len(lines), commands)
	}
	run := func(line string) string {
		t.Helper()
		cmd := exec.Command("bash", "-c", line)
		cmd.Dir = repoRoot
		// A newcomer's shell: none of the engine variables the suite was started with.
		cmd.Env = withoutEngineVars(os.Environ())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		out, err := cmd.Output()
		t.Logf("%s (%.1fs)", line, time.Since(start).Seconds())
		keepCallLog(t, stderr.Bytes())
		if err != nil {
			t.Fatalf("%s: %v\n%s\n%s", line, err, out, tail(stderr.String(), 30))
		}
		return string(out)
	}
	run(lines[0])
	got := run(lines[1])
	if strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Errorf("README.md shows:\n%s\nthe command printed:\n%s", want, got)
	}

	// The other demos: each command's sh block, then the text block it prints.
	for _, demo := range []struct{ name, command string }{
		{"release demo", "dagger call --demo release "},
		{"Cloudcoil demo", "dagger call --demo --repo cloudcoil/cloudcoil "},
	} {
		command, ok := readmeBlock(string(readme), "```sh\n", demo.command)
		if !ok {
			t.Fatalf("README.md has no sh block with the %s", demo.name)
		}
		_, after, _ := strings.Cut(string(readme), command+"```\n\n")
		want, ok := readmeBlock(after, "```text\n", "")
		if !ok || !strings.HasPrefix(after, "```text\n") {
			t.Fatalf("README.md has no text block right after the %s's command", demo.name)
		}
		if got := run(strings.TrimSpace(command)); strings.TrimSpace(got) != strings.TrimSpace(want) {
			t.Errorf("README.md shows:\n%s\nthe %s printed:\n%s", want, demo.name, got)
		}
	}
}

// readmeBlock returns the body of the first fenced block opened by fence whose body starts
// with prefix.
func readmeBlock(readme, fence, prefix string) (string, bool) {
	for _, block := range strings.Split(readme, fence)[1:] {
		body, _, _ := strings.Cut(block, "```")
		if strings.HasPrefix(body, prefix) {
			return body, true
		}
	}
	return "", false
}

func withoutEngineVars(env []string) []string {
	var out []string
	for _, kv := range env {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "_EXPERIMENTAL_DAGGER_RUNNER_HOST", "DAGGER", "ENGINE_PID":
		default:
			out = append(out, kv)
		}
	}
	return out
}
