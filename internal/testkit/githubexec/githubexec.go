// Package githubexec makes the engine double answer each exec of the GitHub command
// (cmd/github, Args[0] == "github") by running the real command, built once per test
// process from this repository: a test of code that runs the command in a container then
// proves the whole round trip (arguments, stdin, the token file, the ETag cache volume)
// against a local GitHub simulator.
//
// Each secret the exec mounts becomes a temporary file holding the test's value for it, and
// each cache volume a folder that lives as long as the test, so what one run caches the
// next run reads, as a cache volume does in the engine. A secret given as a variable, or
// whose value shows in the arguments or the environment, fails the test. Call Main from
// TestMain so the built command is removed at the end.
package githubexec

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/testkit/engine"
)

var (
	buildOnce sync.Once
	buildErr  error
	mu        sync.Mutex
	binDir    string // set by Main; the command is built into it
)

// Main runs the package's tests and removes the command it built.
// Call it from TestMain: os.Exit(githubexec.Main(m)).
func Main(m interface{ Run() int }) int {
	dir, err := os.MkdirTemp("", "shipyard-githubexec-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "githubexec: %v\n", err)
		return 1
	}
	mu.Lock()
	binDir = dir
	mu.Unlock()
	code := m.Run()
	_ = os.RemoveAll(dir)
	return code
}

// Binary is the GitHub command, built on first use.
func Binary(t testing.TB) string {
	t.Helper()
	mu.Lock()
	dir := binDir
	mu.Unlock()
	if dir == "" {
		t.Fatal("githubexec: call githubexec.Main from TestMain, so the command it builds is removed")
	}
	buildOnce.Do(func() {
		root, err := corpus.FindRepoRoot()
		if err != nil {
			buildErr = err
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "github"), "./cmd/github")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building the GitHub command: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(dir, "github")
}

// Answer makes e run the real command for every exec whose Args[0] is "github". secrets
// maps each secret's name to its value; a mounted secret not in it fails the test.
func Answer(t testing.TB, e *engine.Engine, secrets map[string]string) *Runs {
	t.Helper()
	r := &Runs{t: t, bin: Binary(t), secrets: secrets, caches: map[string]string{}}
	e.OnExec(engine.ExecRule{
		Match: func(x engine.Exec) bool { return len(x.Args) > 0 && x.Args[0] == "github" },
		Run:   r.run,
	})
	return r
}

// Runs answers the execs of the command for one test.
type Runs struct {
	t       testing.TB
	bin     string
	secrets map[string]string

	mu       sync.Mutex
	caches   map[string]string // cache volume key → its folder, for the whole test
	services map[string]string // a bound service's alias → where the test serves it
	faults   []*RunFault
}

// RunFault is a run of the command lost after it ran: the command did all it does (its
// requests reached GitHub, its writes took effect), then the engine reports a failure
// instead of its outcome, as when the container is killed (out of memory, a timeout) or
// the engine's connection drops before the output reaches the module.
type RunFault struct {
	// Match picks the runs it applies to; nil matches every run.
	Match func(engine.Exec) bool
	// ExitCode is what the engine reports (137, as for SIGKILL, when 0); the run's
	// stdout is lost.
	ExitCode int
	// Stderr is what the engine reports on stderr.
	Stderr string
	// Times is how many matching runs are lost; zero or less means every one.
	Times int
}

// InjectFault loses the matching runs after they ran, as f says; faults apply in the
// order injected.
func (r *Runs) InjectFault(f RunFault) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f.Times <= 0 {
		f.Times = -1
	}
	if f.ExitCode == 0 {
		f.ExitCode = 137
	}
	r.faults = append(r.faults, &f)
}

// takeFault is the first fault that applies to x, used up once; nil when none does.
func (r *Runs) takeFault(x engine.Exec) *RunFault {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.faults {
		if f.Times == 0 || (f.Match != nil && !f.Match(x)) {
			continue
		}
		if f.Times > 0 {
			f.Times--
		}
		return f
	}
	return nil
}

// Serve answers, for execs with a service bound as alias, its address http://alias:port/
// in an argument at url (a server of the test), as the engine would reach the service.
func (r *Runs) Serve(alias, url string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.services == nil {
		r.services = map[string]string{}
	}
	r.services[alias] = strings.TrimSuffix(url, "/")
}

// serviceURL is a rewritten to the test's server when it addresses a service x binds.
func (r *Runs) serviceURL(x engine.Exec, a string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for alias, url := range r.services {
		if _, bound := x.Services[alias]; !bound {
			continue
		}
		rest, ok := strings.CutPrefix(a, "http://"+alias)
		if !ok {
			continue
		}
		// The port, then the path.
		if i := strings.Index(rest, "/"); strings.HasPrefix(rest, ":") && i > 0 {
			return url + rest[i:]
		}
	}
	return a
}

// refuse fails the test for an exec that breaks its rules, and the exec as a harness
// error would (125).
func (r *Runs) refuse(format string, args ...any) (string, string, int) {
	msg := fmt.Sprintf(format, args...)
	r.t.Errorf("githubexec: %s", msg)
	return "", "githubexec: " + msg, 125
}

// run runs the command for x, its container paths rewritten to files and folders here.
func (r *Runs) run(x engine.Exec) (string, string, int) {
	for name, v := range r.secrets {
		if v == "" {
			continue // nothing to leak, and in every string
		}
		if strings.Contains(strings.Join(x.Args, "\x00"), v) {
			return r.refuse("secret %s is in the arguments", name)
		}
		for k, ev := range x.Env {
			if strings.Contains(ev, v) {
				return r.refuse("secret %s is in variable %s", name, k)
			}
		}
	}
	tmp, err := os.MkdirTemp("", "githubexec-run-")
	if err != nil {
		return r.refuse("%v", err)
	}
	defer os.RemoveAll(tmp)
	paths := map[string]string{} // path in the container → path here
	for i, s := range x.Secrets {
		if s.Env != "" {
			return r.refuse("secret %s is given as variable %s, not as a file", s.Name, s.Env)
		}
		v, ok := r.secrets[s.Name]
		if !ok {
			return r.refuse("secret %q is not one of the test's", s.Name)
		}
		p := filepath.Join(tmp, fmt.Sprintf("secret-%d", i))
		if err := os.WriteFile(p, []byte(v+"\n"), 0o600); err != nil {
			return r.refuse("%v", err)
		}
		paths[s.Path] = p
	}
	for _, m := range x.Mounts {
		if m.Kind == "withMountedCache" {
			dir, err := r.cacheDir(m.Cache)
			if err != nil {
				return r.refuse("%v", err)
			}
			paths[m.Path] = dir
		}
	}
	args := make([]string, 0, len(x.Args)-1)
	for _, a := range x.Args[1:] {
		if p, ok := paths[a]; ok {
			a = p
		}
		args = append(args, r.serviceURL(x, a))
	}
	cmd := exec.Command(r.bin, args...)
	cmd.Stdin = strings.NewReader(x.Stdin)
	cmd.Dir = tmp
	// Only what the container's environment holds, as in the engine.
	cmd.Env = []string{"HOME=" + tmp}
	for k, v := range x.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if f := r.takeFault(x); f != nil {
		return "", f.Stderr, f.ExitCode
	}
	var xe *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &xe):
		return stdout.String(), stderr.String(), xe.ExitCode()
	}
	return r.refuse("running the GitHub command: %v", err)
}

// cacheDir is the folder of the cache volume key, made on first use and kept for the test.
func (r *Runs) cacheDir(key string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if dir, ok := r.caches[key]; ok {
		return dir, nil
	}
	dir, err := os.MkdirTemp("", "githubexec-cache-")
	if err != nil {
		return "", err
	}
	r.t.Cleanup(func() { os.RemoveAll(dir) })
	r.caches[key] = dir
	return dir, nil
}

// CacheDirs are the folders standing for the cache volumes the runs mounted, by key.
func (r *Runs) CacheDirs() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.caches)
}

// SpoilCaches overwrites every file of every cache volume the runs mounted with data, as
// whoever can write a volume could, and fails the test when there is none to spoil.
func (r *Runs) SpoilCaches(data []byte) {
	r.t.Helper()
	dirs := r.CacheDirs()
	if len(dirs) == 0 {
		r.t.Fatal("githubexec: no cache volume was mounted")
	}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) == 0 {
			r.t.Fatalf("githubexec: the cache volume holds %v (%v)", entries, err)
		}
		for _, e := range entries {
			if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o600); err != nil {
				r.t.Fatal(err)
			}
		}
	}
}
