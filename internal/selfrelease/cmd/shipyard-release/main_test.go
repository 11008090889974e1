package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/selfrelease"
)

// forge is Shipyard's repository as the forge holds it (a bare origin) and a maintainer's
// clone of it: a CHANGELOG with 0.1.0's section, its notes, a wrapper and a README that
// pin an older commit.
type forge struct {
	t      *testing.T
	origin string
	dir    string
}

const older = "4a07d756010dcad18103e57c9a44ebe03e5b28a3"

func newForge(t *testing.T) *forge {
	t.Helper()
	// git commits with the process's environment: give it an identity and keep the
	// machine's own configuration out, so a machine without one passes too.
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
		"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": os.DevNull} {
		t.Setenv(k, v)
	}
	f := &forge{t: t, origin: t.TempDir(), dir: t.TempDir()}
	f.gitIn(f.origin, "init", "-q", "--bare", "-b", "main")
	f.git("init", "-q", "-b", "main")
	f.git("remote", "add", "origin", f.origin)
	f.write("CHANGELOG.md", "# Changelog\n\n## [Unreleased]\n\n## [0.1.0] - 2026-12-02\n\n### Added\n\n- Releases (#36)\n\n[0.1.0]: https://github.com/elixir-cloud-aai/shipyard/releases/tag/v0.1.0\n")
	f.write("docs/releases/0.1.0.md", "Shipyard's first release.\n\n## Features\n\n- Releases (#36)\n")
	f.write("examples/github-actions/tesk-core/ci.yml", "env:\n  SHIPYARD: "+selfrelease.Module+"@"+older+" # v0.0.9\n")
	f.write("README.md", "SHIPYARD="+selfrelease.Module+"@"+older+" # v0.0.9\n")
	f.write("main.go", "package main\n")
	f.commit("release: 0.1.0")
	f.git("push", "-q", "origin", "main")
	return f
}

func (f *forge) gitIn(dir string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (f *forge) git(args ...string) string { f.t.Helper(); return f.gitIn(f.dir, args...) }

func (f *forge) write(path, content string) {
	f.t.Helper()
	p := filepath.Join(f.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *forge) read(path string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(path)))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

func (f *forge) commit(msg string) string {
	f.t.Helper()
	f.git("add", "-A")
	f.git("commit", "-q", "-m", msg)
	return f.git("rev-parse", "HEAD")
}

func (f *forge) run(args ...string) (string, error) {
	var out bytes.Buffer
	err := run(f.dir, args, &out)
	return out.String(), err
}

// evidence writes GitHub's check runs of commit, with the gate job concluded as given.
func (f *forge) evidence(commit, conclusion string) string {
	f.t.Helper()
	run := selfrelease.CheckRun{ID: 1, HeadSHA: commit, Name: selfrelease.CICheck, Status: "completed", Conclusion: conclusion}
	run.App.Slug = selfrelease.CIApp
	b, err := json.Marshal(selfrelease.CheckRuns{TotalCount: 1, CheckRuns: []selfrelease.CheckRun{run}})
	if err != nil {
		f.t.Fatal(err)
	}
	path := filepath.Join(f.t.TempDir(), "checks.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		f.t.Fatal(err)
	}
	return path
}

// A release as docs/releasing-shipyard.md makes it: the release commit on main, the
// re-pin commit after it, CI on main, then the release workflow's gates name the tag.
func TestReleaseShipyard(t *testing.T) {
	f := newForge(t)
	release := f.git("rev-parse", "HEAD")

	out, err := f.run("next", "--commit", release, "--ci-evidence", f.evidence(release, "success"))
	if err != nil || out != "tag=\n" {
		t.Fatalf("next before the re-pin: %q, %v; want nothing to tag", out, err)
	}
	if _, err := f.run("check", "v0.1.0", release); err == nil || !strings.Contains(err.Error(), "names no release commit") {
		t.Fatalf("check before the re-pin: %v", err)
	}

	if out, err := f.run("repin", "v0.1.0", release); err != nil {
		t.Fatal(err)
	} else if !strings.Contains(out, "3 file(s) changed") {
		t.Errorf("repin said %q", out)
	}
	pin := selfrelease.Module + "@" + release + " # v0.1.0"
	for _, file := range []string{"examples/github-actions/tesk-core/ci.yml", "README.md", "CHANGELOG.md"} {
		if !strings.Contains(f.read(file), pin) {
			t.Errorf("%s after repin:\n%s\nwant %s", file, f.read(file), pin)
		}
	}
	if _, err := f.run("check", "v0.1.0"); err != nil {
		t.Fatalf("the re-pinned working tree: %v", err)
	}
	repinned := f.commit("release: pin v0.1.0")
	f.git("push", "-q", "origin", "main")

	if _, err := f.run("check", "v0.1.0", repinned); err != nil {
		t.Fatal(err)
	}
	if _, err := f.run("next", "--commit", repinned, "--ci-evidence", f.evidence(repinned, "failure")); err == nil || !strings.Contains(err.Error(), "ci-passed") {
		t.Fatalf("next when CI failed on main: %v", err)
	}
	if _, err := f.run("next", "--commit", repinned, "--ci-evidence", f.evidence(release, "success")); err == nil || !strings.Contains(err.Error(), "ci-passed") {
		t.Fatalf("next with CI's pass of another commit: %v", err)
	}
	out, err = f.run("next", "--commit", repinned, "--ci-evidence", f.evidence(repinned, "success"))
	if err != nil || out != "tag=v0.1.0\ncommit="+release+"\n" {
		t.Fatalf("next: %q, %v", out, err)
	}

	// The forge tags the release commit; the next run of the workflow has nothing to do.
	f.gitIn(f.origin, "tag", "-a", "-m", "Shipyard v0.1.0", "v0.1.0", release)
	out, err = f.run("next", "--commit", repinned, "--ci-evidence", f.evidence(repinned, "success"))
	if err != nil || out != "tag=\n" {
		t.Fatalf("next once tagged: %q, %v", out, err)
	}
}

// A release whose re-pin commit changes more than pins is refused: CI ran another module.
func TestNextRefusesARepinThatChangesCode(t *testing.T) {
	f := newForge(t)
	release := f.git("rev-parse", "HEAD")
	if _, err := f.run("repin", "v0.1.0", release); err != nil {
		t.Fatal(err)
	}
	f.write("main.go", "package main\n\nfunc init() { panic(1) }\n")
	head := f.commit("release: pin v0.1.0, and a change")
	f.git("push", "-q", "origin", "main")
	_, err := f.run("next", "--commit", head, "--ci-evidence", f.evidence(head, "success"))
	if err == nil || !strings.Contains(err.Error(), "re-pin: from the release commit") || !strings.Contains(err.Error(), "main.go: changed after the release commit") {
		t.Fatalf("next: %v", err)
	}
}

// The gates read main as the forge holds it: a head the forge lacks is refused.
func TestNextRefusesWhatMainLacks(t *testing.T) {
	f := newForge(t)
	release := f.git("rev-parse", "HEAD")
	if _, err := f.run("repin", "v0.1.0", release); err != nil {
		t.Fatal(err)
	}
	head := f.commit("release: pin v0.1.0") // not pushed
	_, err := f.run("next", "--commit", head, "--ci-evidence", f.evidence(head, "success"))
	if err == nil || !strings.Contains(err.Error(), "on-main") || !strings.Contains(err.Error(), "not pushed to origin/main") {
		t.Fatalf("next of an unpushed head: %v", err)
	}
}

func TestRepinRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(f *forge) string // returns the release ref
		want  string
	}{
		{"a dirty tree", func(f *forge) string {
			f.write("main.go", "package main // changed\n")
			return "HEAD"
		}, "the working tree has changes"},
		{"unpushed commits", func(f *forge) string {
			f.write("main.go", "package main // local\n")
			f.commit("local work")
			return "HEAD"
		}, "1 commit(s) not pushed to origin/main"},
		{"a release commit main lacks", func(f *forge) string {
			f.git("checkout", "-q", "-b", "side")
			f.write("main.go", "package main // side\n")
			side := f.commit("side")
			f.git("checkout", "-q", "main")
			return side
		}, "is not on origin/main"},
		{"a commit this clone lacks", func(f *forge) string { return strings.Repeat("a", 40) }, "is not a commit"},
		{"a malformed tag", func(f *forge) string { return "HEAD" }, "not a release tag"},
		{"a tag on another commit", func(f *forge) string {
			first := f.git("rev-parse", "HEAD")
			f.gitIn(f.origin, "tag", "v0.1.0", first)
			f.write("main.go", "package main // next\n")
			f.commit("next")
			f.git("push", "-q", "origin", "main")
			return "HEAD"
		}, "not-moved"},
		{"a release without notes", func(f *forge) string {
			f.git("rm", "-q", "docs/releases/0.1.0.md")
			f.commit("no notes")
			f.git("push", "-q", "origin", "main")
			return "HEAD"
		}, "release-notes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newForge(t)
			ref := tt.setup(f)
			tag := "v0.1.0"
			if tt.name == "a malformed tag" {
				tag = "0.1.0"
			}
			before := f.git("status", "--porcelain")
			_, err := f.run("repin", tag, ref)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("repin: %v, want %q", err, tt.want)
			}
			if after := f.git("status", "--porcelain"); after != before {
				t.Errorf("a refused repin changed the tree:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"tag", "v0.1.0"}, {"ci"}, {"repin", "v0.1.0"}, {"nope"}, {"check", "a", "b", "c"},
		{"next"}, {"next", "--commit", "x"}, {"next", "--ci-evidence", "x"}, {"next", "--commit", "x", "--ci-evidence", "y", "z"}} {
		if err := run(t.TempDir(), args, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "usage") {
			t.Errorf("%v: %v", args, err)
		}
	}
}
