package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/selfrelease"
)

// clone makes a git repository in a temporary directory, as Shipyard's clone looks to the
// command: a CHANGELOG, the release notes, a wrapper that pins a release, and a .ci/run
// that passes or fails as ci says.
func clone(t *testing.T, ciPasses bool) (string, func(args ...string) string) {
	t.Helper()
	// The command commits and writes notes with the process's git: give it an identity
	// and keep the machine's own configuration out, so a machine without one passes too.
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
		"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": os.DevNull} {
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(path, content string) {
		p := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exit := "0"
	if !ciPasses {
		exit = "1"
	}
	write(".ci/run", "exit "+exit+"\n")
	write("CHANGELOG.md", "# Changelog\n\n## [Unreleased]\n\n## [0.1.0] - 2026-12-02\n\n### Added\n\n- Releases (#36)\n\n[0.1.0]: https://github.com/elixir-cloud-aai/shipyard/releases/tag/v0.1.0\n")
	write("docs/releases/0.1.0.md", "Shipyard's first release.\n\n## Features\n\n- Releases (#36)\n")
	write("examples/github-actions/tesk-core/ci.yml", "env:\n  SHIPYARD: "+selfrelease.Module+"@4a07d756010dcad18103e57c9a44ebe03e5b28a3\n")
	write("README.md", "dagger toolchain install "+selfrelease.Module+"@v0.0.9\n")
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "first")
	return dir, git
}

// A release as docs/releasing-shipyard.md runs it: the commit with its CHANGELOG section
// and notes, then the re-pin commit that points every pin at it (the release's own commit
// cannot name itself), CI recorded on the re-pin commit, and the tag there.
func TestReleaseShipyard(t *testing.T) {
	dir, git := clone(t, true)
	prepared := git("rev-parse", "HEAD")

	if err := run(dir, []string{"ci"}); err != nil {
		t.Fatal(err)
	}
	err := run(dir, []string{"tag", "v0.1.0"})
	if err == nil || !strings.Contains(err.Error(), "pins:") {
		t.Fatalf("tag before the re-pin: %v", err)
	}
	if out := git("tag", "--list"); out != "" {
		t.Fatalf("a tag was created although a gate failed: %s", out)
	}

	if err := run(dir, []string{"repin", "v0.1.0"}); err != nil {
		t.Fatal(err)
	}
	ci, _ := os.ReadFile(filepath.Join(dir, "examples/github-actions/tesk-core/ci.yml"))
	if want := "SHIPYARD: " + selfrelease.Module + "@" + prepared + " # v0.1.0"; !strings.Contains(string(ci), want) {
		t.Errorf("ci.yml after repin:\n%s\nwant %s", ci, want)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if !strings.Contains(string(readme), selfrelease.Module+"@v0.1.0") {
		t.Errorf("README.md after repin:\n%s", readme)
	}
	git("commit", "-q", "-am", "examples: pin Shipyard v0.1.0")
	repinned := git("rev-parse", "HEAD")

	err = run(dir, []string{"tag", "v0.1.0"})
	if err == nil || !strings.Contains(err.Error(), "ci-passed") {
		t.Fatalf("tag of the re-pin commit before CI passed on it: %v", err)
	}
	if err := run(dir, []string{"ci"}); err != nil {
		t.Fatal(err)
	}
	if note := git("notes", "--ref", selfrelease.CINotesRef, "show", repinned); !strings.HasPrefix(note, "passed .ci/run") {
		t.Fatalf("CI record %q", note)
	}
	if err := run(dir, []string{"tag", "v0.1.0"}); err != nil {
		t.Fatal(err)
	}
	if got := git("rev-parse", "v0.1.0^{commit}"); got != repinned {
		t.Fatalf("v0.1.0 on %s, want the re-pin commit %s", got, repinned)
	}
	if typ := git("cat-file", "-t", "v0.1.0"); typ != "tag" {
		t.Errorf("v0.1.0 is a %s, want an annotated tag", typ)
	}
	if err := run(dir, []string{"tag", "v0.1.0"}); err != nil {
		t.Errorf("tagging again the same commit: %v", err)
	}
	if err := run(dir, []string{"check", "v0.1.0", prepared}); err == nil || !strings.Contains(err.Error(), "not-moved") {
		t.Errorf("the tag of another commit: %v", err)
	}
	if err := run(dir, []string{"repin", "0.2.0"}); err == nil || !strings.Contains(err.Error(), "not a release tag") {
		t.Errorf("repin to a malformed tag: %v", err)
	}
}

func TestCIRecordsOnlyAPassOnACleanTree(t *testing.T) {
	dir, git := clone(t, false)
	if err := run(dir, []string{"ci"}); err == nil {
		t.Fatal("a failing .ci/run was recorded")
	}
	if out := git("notes", "--ref", selfrelease.CINotesRef, "list"); out != "" {
		t.Fatalf("notes after a failure: %s", out)
	}
	dir, _ = clone(t, true)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, []string{"ci"}); err == nil || !strings.Contains(err.Error(), "working tree has changes") {
		t.Fatalf("ci with a dirty tree: %v", err)
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"tag"}, {"repin"}, {"nope"}, {"check", "a", "b", "c"}} {
		if err := run(t.TempDir(), args); err == nil || !strings.Contains(err.Error(), "usage") {
			t.Errorf("%v: %v", args, err)
		}
	}
}
