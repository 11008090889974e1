//go:build realengine

package realengine

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// gateway is the engine network's bridge address: containers reach the servers the tests
// start (inside the engine's network namespace) there.
const gateway = "10.87.0.1"

var (
	daggerCLI string // the real dagger CLI
	module    string // a copy of the module, loaded by the engine
	repoRoot  string // the checkout the tests run from
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	daggerCLI = os.Getenv("DAGGER")
	if daggerCLI == "" || os.Getenv("_EXPERIMENTAL_DAGGER_RUNNER_HOST") == "" {
		fmt.Fprintln(os.Stderr, "realengine: no Dagger engine: DAGGER and _EXPERIMENTAL_DAGGER_RUNNER_HOST are unset; run .ci/realengine")
		return 1
	}
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "realengine: finding the checkout:", err)
		return 1
	}
	repoRoot = strings.TrimSpace(string(out))
	dir, err := os.MkdirTemp("", "shipyard-module-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "realengine:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	// The engine loads a copy: what git would commit, so files the engine's codegen writes
	// (internal/dagger) never land in the checkout, and local build output stays out.
	if err := copyTree(repoRoot, dir); err != nil {
		fmt.Fprintln(os.Stderr, "realengine: copying the module:", err)
		return 1
	}
	module = dir
	stopRegistry, err := startRegistry()
	if err != nil {
		fmt.Fprintln(os.Stderr, "realengine: local registry:", err)
		return 1
	}
	defer stopRegistry()
	if baseImage, err = pushBaseImage(); err != nil {
		fmt.Fprintln(os.Stderr, "realengine: base image:", err)
		return 1
	}
	// publishtest builds the signing command's test Sigstore and removes it at the end.
	return publishtest.Main(m)
}

// copyTree copies the files git tracks or would track (ignored files left out).
func copyTree(from, to string) error {
	out, err := exec.Command("git", "-C", from, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %w", err)
	}
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(from, rel)
		info, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			continue
		}
		dst := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, info.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

// result is what one CLI run printed.
type result struct {
	stdout, stderr string
	err            error
}

func (r result) String() string {
	return fmt.Sprintf("err: %v\nstdout:\n%s\nstderr (last lines):\n%s", r.err, r.stdout, tail(r.stderr, 40))
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// client is a machine that runs the dagger CLI: its checkout of the module, and the
// variables its environment sets (how it reaches the engine, above all). The zero client
// is the suite's own: the module copy, and the engine's unix socket of TestMain's
// environment.
type client struct {
	module string            // its checkout of Shipyard; "": the suite's copy
	env    map[string]string // replaces these variables of the suite's environment
}

// cli runs the dagger CLI on the module copy; env adds variables (secrets travel as
// env://NAME, never as arguments).
func cli(t testing.TB, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	return client{}.cli(t, env, stdin, args...)
}

// cli runs the dagger CLI on the client's checkout with the client's environment; env
// adds variables.
func (c client) cli(t testing.TB, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	mod := c.module
	if mod == "" {
		mod = module
	}
	full := append([]string{"--progress=plain", "-m", mod}, args...)
	cmd := exec.CommandContext(ctx, daggerCLI, full...)
	cmd.Env = environ(c.env, env)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("dagger %s (%.1fs)", strings.Join(redactArgs(args), " "), time.Since(start).Seconds())
	keepCallLog(t, stderr.Bytes())
	return result{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// callLogsEnv names a folder where each call's --progress=plain log is kept (one file per
// call, named after its test), to see where a slow call's time goes: every exec and
// whether the engine took it from its cache.
const callLogsEnv = "REALENGINE_CALL_LOGS"

var callLogs atomic.Int64

func keepCallLog(t testing.TB, log []byte) {
	dir := os.Getenv(callLogsEnv)
	if dir == "" {
		return
	}
	name := fmt.Sprintf("%03d-%s.log", callLogs.Add(1), strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name), log, 0o644)
	}
	if err != nil {
		t.Logf("%s: keeping the call's log: %v", callLogsEnv, err)
	}
}

// environ is the suite's environment with the variables of each set in sets replaced
// (later sets win): a variable set here appears once, so a client given another engine
// address has no other.
func environ(sets ...map[string]string) []string {
	set := map[string]string{}
	for _, s := range sets {
		for k, v := range s {
			set[k] = v
		}
	}
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			out = append(out, kv)
		}
	}
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	return out
}

// call runs `dagger call` and fails the test unless it succeeds.
func call(t testing.TB, env map[string]string, args ...string) string {
	t.Helper()
	return client{}.call(t, env, args...)
}

// call runs `dagger call` from the client and fails the test unless it succeeds.
func (c client) call(t testing.TB, env map[string]string, args ...string) string {
	t.Helper()
	r := c.cli(t, env, "", append([]string{"call"}, args...)...)
	if r.err != nil {
		t.Fatalf("dagger call %s failed:\n%s", strings.Join(args, " "), r)
	}
	return r.stdout
}

func redactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 120 {
			a = a[:117] + "..."
		}
		out[i] = a
	}
	return out
}

// serve listens inside the engine's network on a free port and returns the URL containers
// use, http://10.87.0.1:<port>.
func serve(t testing.TB, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, l, h)
}

// serveStable is serve on a port that is the same on every run for the test and role (a
// port of 20000-29999, below the ephemeral range, from a hash of both), or a free one when
// that port is taken. A release call's cache volumes are named after where its credentials
// act, the GitHub API's URL among them: on a new port each run, every release call found
// its Go caches empty and compiled the signing and GitHub commands again (about 55 s a
// call); on the same port, a run reuses what the run before it built.
func serveStable(t testing.TB, role string, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", fmt.Sprintf("0.0.0.0:%d", stablePort(t.Name(), role)))
	if err != nil {
		t.Logf("the stable port of %s's %s is taken (%v): serving on a free one, so this run reuses no cache volume of the last", t.Name(), role, err)
		return serve(t, h)
	}
	return serveOn(t, l, h)
}

// stablePort is the port serveStable tries for a test and role.
func stablePort(test, role string) int {
	h := fnv.New32a()
	h.Write([]byte(test + "\x00" + role))
	return 20000 + int(h.Sum32()%10000)
}

func serveOn(t testing.TB, l net.Listener, h http.Handler) string {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return fmt.Sprintf("http://%s:%d", gateway, l.Addr().(*net.TCPAddr).Port)
}

// publishGitHub serves a simulator that listens on loopback at the engine network's
// address, and makes the links in its answers use that address. It is on a new port every
// run, so every cache volume named after the GitHub API starts empty: the tests that count
// what a volume held (ETag caches, trust levels) rely on it.
func publishGitHub(t testing.TB, sim *githubsim.Server) string {
	t.Helper()
	return publishGitHubAt(t, sim, serve(t, proxyTo(t, sim.URL)))
}

// publishGitHubStable is publishGitHub on serveStable's port, for the tests whose release
// calls build the signing and GitHub commands: a run reuses the Go caches the run before it
// filled.
func publishGitHubStable(t testing.TB, sim *githubsim.Server) string {
	t.Helper()
	return publishGitHubAt(t, sim, serveStable(t, "github", proxyTo(t, sim.URL)))
}

func publishGitHubAt(t testing.TB, sim *githubsim.Server, u string) string {
	t.Helper()
	sim.URL = u
	return u + "/"
}

func proxyTo(t testing.TB, target string) http.Handler {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	return httputil.NewSingleHostReverseProxy(u)
}

// mustContain fails unless s contains every want.
func mustContain(t testing.TB, what, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

// fixtureCommitDate is the date of every commit the suite's fixtures make.
const fixtureCommitDate = "2026-11-02T12:00:00Z"

// gitIdentity is the environment of a fixture's git commands: the author and committer
// name and email, and one fixed date for both. With the date fixed, a fixture's commits
// have the same SHAs on every run and in every test that commits the same files, so the
// engine reuses what an earlier test or run built from them (a commit's SHA is in its
// checkout and in the images' labels): with the clock's date, every test rebuilt both
// images, arm64 under the emulator, on every run.
func gitIdentity(name, email string) []string {
	return []string{"GIT_AUTHOR_NAME=" + name, "GIT_AUTHOR_EMAIL=" + email, "GIT_AUTHOR_DATE=" + fixtureCommitDate,
		"GIT_COMMITTER_NAME=" + name, "GIT_COMMITTER_EMAIL=" + email, "GIT_COMMITTER_DATE=" + fixtureCommitDate}
}
