package githubexec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/engine"
)

// recorder is a test whose failures are kept, to see what run refuses.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Errorf(format string, args ...any) { r.failures = append(r.failures, format) }

// script is a stand-in for the command that prints its arguments, then its stdin, and
// the token file's contents when given one.
func script(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "github")
	body := "#!/bin/sh\necho \"$@\"\ncat\necho\nfor a in \"$@\"; do case \"$a\" in */secret-*) cat \"$a\";; esac; done\n"
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunRefusesASecretInTheOpen(t *testing.T) {
	const token = "ghp_secretvalue"
	for _, tt := range []struct {
		name string
		x    engine.Exec
	}{
		{"in the arguments", engine.Exec{Args: []string{"github", "call", "--token", token}}},
		{"in a variable's value", engine.Exec{Args: []string{"github", "call"}, Env: map[string]string{"T": "x" + token}}},
		{"given as a variable", engine.Exec{Args: []string{"github", "call"}, Secrets: []engine.SecretUse{{Name: "github-token", Env: "GITHUB_TOKEN"}}}},
		{"not the test's", engine.Exec{Args: []string{"github", "call"}, Secrets: []engine.SecretUse{{Name: "other", Path: "/run/secrets/other"}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			r := &Runs{t: rec, bin: script(t), secrets: map[string]string{"github-token": token}, caches: map[string]string{}}
			_, stderr, code := r.run(tt.x)
			if code != 125 || len(rec.failures) != 1 || strings.Contains(stderr, token) {
				t.Errorf("exit %d, stderr %q, failures %q: want the test failed without the token shown", code, stderr, rec.failures)
			}
		})
	}
}

// The token file, the cache folder and stdin reach the command; the cache folder is the
// same for each run with the same volume.
func TestRunRewritesPathsAndKeepsCaches(t *testing.T) {
	r := &Runs{t: t, bin: script(t), secrets: map[string]string{"github-token": "ghp_abc"}, caches: map[string]string{}}
	x := engine.Exec{
		Args:    []string{"github", "call", "--token-file", "/run/secrets/github-token", "--cache-dir", "/var/cache/gh", "Releases"},
		Secrets: []engine.SecretUse{{Name: "github-token", Path: "/run/secrets/github-token"}},
		Mounts:  []engine.Mount{{Path: "/var/cache/gh", Kind: "withMountedCache", Cache: "etags"}},
		Stdin:   `["o","r"]`,
	}
	var outs []string
	for range 2 {
		stdout, stderr, code := r.run(x)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		outs = append(outs, stdout)
	}
	dir := r.CacheDirs()["etags"]
	lines := strings.Split(outs[0], "\n")
	if dir == "" || !strings.Contains(lines[0], "--cache-dir "+dir+" Releases") || strings.Contains(lines[0], "/run/secrets") {
		t.Errorf("arguments %q, want the paths here (cache %q)", lines[0], dir)
	}
	if lines[1] != `["o","r"]` || lines[2] != "ghp_abc" {
		t.Errorf("stdin and token file gave %q", lines[1:])
	}
	if !strings.Contains(outs[1], "--cache-dir "+dir+" ") {
		t.Errorf("the second run had another cache folder: %q", outs[1])
	}
}

// A run fault loses the matching runs after the command ran: the engine reports its exit
// code and stderr, the run's stdout is gone, and the next matching run past Times is the
// command's own again.
func TestRunFaultLosesARunAfterItRan(t *testing.T) {
	r := &Runs{t: t, bin: script(t), caches: map[string]string{}}
	marker := filepath.Join(t.TempDir(), "ran")
	r.InjectFault(RunFault{Match: func(x engine.Exec) bool { return x.Args[1] == "batch" }, Stderr: "killed", Times: 1})
	batch := engine.Exec{Args: []string{"github", "batch", "--cache-dir", marker}, Stdin: "[]"}
	call := engine.Exec{Args: []string{"github", "call", "Releases"}}
	for _, tt := range []struct {
		name   string
		x      engine.Exec
		code   int
		stdout string
		stderr string
	}{
		{"the first batch is lost", batch, 137, "", "killed"},
		{"a call does not match", call, 0, "call Releases\n\n", ""},
		{"the second batch is the command's", batch, 0, "batch --cache-dir " + marker + "\n[]\n", ""},
	} {
		stdout, stderr, code := r.run(tt.x)
		if code != tt.code || stdout != tt.stdout || stderr != tt.stderr {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.name, code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
		}
	}
}
