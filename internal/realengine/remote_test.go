//go:build realengine

package realengine

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/testkit/teskreal"
)

// An engine a team shares: Dagger's engine running as a service (a self-hosted runner's,
// a Kubernetes Deployment's), which each job's CLI reaches over TCP with
// _EXPERIMENTAL_DAGGER_RUNNER_HOST=tcp://host:port, so its cache outlives the job.
// .ci/realengine makes the suite's one engine listen on TCP as well as on its unix socket
// (SHIPYARD_ENGINE_TCP); the clients here know only the TCP address.

// remoteClient is a runner of its own that reaches the engine only over TCP: its own
// checkout of Shipyard (as each runner clones the repository), and an environment whose
// one engine address is the TCP one.
func remoteClient(t testing.TB) client {
	t.Helper()
	addr := os.Getenv("SHIPYARD_ENGINE_TCP")
	if !strings.HasPrefix(addr, "tcp://") {
		t.Fatalf("SHIPYARD_ENGINE_TCP=%q: no TCP address of the engine; run .ci/realengine, which makes the engine listen on one", addr)
	}
	checkout := t.TempDir()
	if err := copyTree(repoRoot, checkout); err != nil {
		t.Fatal(err)
	}
	return client{module: checkout, env: map[string]string{"_EXPERIMENTAL_DAGGER_RUNNER_HOST": addr}}
}

// Shipyard on a remote engine: a client that reaches the engine only over TCP loads the
// module from its own checkout and runs pr-title. The suite's ci on tesk-core's real code
// (TestTeskCoreRealCI) and its release rehearsal (TestReleaseDryRun) run from such
// clients too, so the suite pays for none of them twice. The same client pointed at a TCP
// port where no engine listens gets nowhere: it has no other way to the engine.
func TestShipyardOnARemoteEngine(t *testing.T) {
	t.Parallel()
	remote := remoteClient(t)
	// Dagger's client waits up to 10 minutes for an engine to come up at its address, so
	// the control is bounded: pointed at a port where nothing listens, the same client
	// gets no verdict in 20 s, where it gets one over the engine's TCP address in seconds.
	t.Run("no engine at the address", func(t *testing.T) {
		t.Parallel()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := l.Addr().String()
		l.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, daggerCLI, "--progress=plain", "-m", remote.module, "call", "pr-title", "--title", "fix: retry uploads")
		cmd.Env = environ(map[string]string{"_EXPERIMENTAL_DAGGER_RUNNER_HOST": "tcp://" + closed})
		out, err := cmd.CombinedOutput()
		if err == nil || strings.Contains(string(out), "PR title ok") {
			t.Fatalf("pr-title with no engine at tcp://%s: the client reached an engine another way (%v):\n%s", closed, err, tail(string(out), 20))
		}
	})
	t.Run("pr-title", func(t *testing.T) {
		t.Parallel()
		out := remote.call(t, nil, "pr-title", "--title", "fix(filer): retry uploads")
		mustContain(t, "pr-title", out, "PR title ok")
	})
}

// Two runners sharing one engine over TCP, one running a pull request's job and the other
// a release's: the pull-request-level call (update-repos --dry-run) and the release-level
// call (update-repos with the token) from two clients mount different cache volumes.
// The controls show that the clients do share the engine's volumes where their levels
// match: a dry run from the release runner finds the other runner's dry-run mark, and a
// credentialed run from the pull-request runner finds the release runner's credentialed
// mark (the same token on the same repository seals the same volume). So a mark missing
// across levels is the trust levels' doing, not the clients'.
func TestTrustLevelsSeparateTwoClientsOfOneRemoteEngine(t *testing.T) {
	t.Parallel()
	pr, rel := remoteClient(t), remoteClient(t)
	run := updateReposProbe(t)

	prMark, _ := run(pr, false)
	relMark, heldByRelease := run(rel, true)
	nextDryMark, heldByNextDryRun := run(rel, false)
	_, heldBySecondRelease := run(pr, true)
	t.Logf("volumes held: release runner's credentialed run [%s]; its dry run [%s]; pull-request runner's credentialed run [%s]",
		heldByRelease, heldByNextDryRun, heldBySecondRelease)

	if strings.Contains(heldByRelease, prMark) {
		t.Errorf("the release-level call found the pull-request runner's dry-run mark %s: one volume across levels", prMark)
	}
	if strings.Contains(heldByNextDryRun, relMark) {
		t.Errorf("the dry run found the release-level mark %s: one volume across levels", relMark)
	}
	if strings.Contains(heldBySecondRelease, prMark) || strings.Contains(heldBySecondRelease, nextDryMark) {
		t.Errorf("a release-level call found a dry run's mark (%s or %s) in [%s]", prMark, nextDryMark, heldBySecondRelease)
	}
	// The controls: the same level from the other client shares.
	if !strings.Contains(heldByNextDryRun, prMark) {
		t.Errorf("the release runner's dry run did not find the pull-request runner's dry-run mark %s (held [%s]): the two clients share no volume, so the test proves nothing",
			prMark, heldByNextDryRun)
	}
	if !strings.Contains(heldBySecondRelease, relMark) {
		t.Errorf("the pull-request runner's credentialed run did not find the release runner's mark %s (held [%s]): the release level shares nothing across runners",
			relMark, heldBySecondRelease)
	}
}

// BenchmarkSharedEngineCI measures what a team gains from an engine that outlives the job:
// three ci jobs on tesk-core's real code (TestTeskCoreRealCI's setup), each the whole
// `dagger call … ci` of a runner that reaches the engine over TCP from its own checkout,
// module load included:
//   - first: a commit the engine has never seen (a comment unique to this run in
//     pyproject.toml, which every job reads);
//   - second: the same commit again (a re-run, or the next job on the same tree);
//   - upgrade: the same commit after Shipyard's source changed (a constant added to a leaf
//     package), as the engine loads a new version of the module.
//
// On the suite's engine, whose state the kit keeps between runs, the first is a new
// commit on a warm engine. On an engine started on an empty state it is a cold engine per
// job, as on a hosted runner (docs/shared-engine.md says how it was run):
//
//	REALENGINE_FRESH_CALL=0 REALENGINE_BENCH='^BenchmarkSharedEngineCI$' .ci/realengine run
func BenchmarkSharedEngineCI(b *testing.B) {
	remote := remoteClient(b)
	img := pythonImage(b)
	pyproject, err := os.ReadFile(filepath.Join(teskreal.Tree(b), "pyproject.toml"))
	if err != nil {
		b.Fatal(err)
	}
	src := teskRealProject(b, map[string]string{
		"containers/taskmaster.Dockerfile": engineDockerfile(img, "taskmaster"),
		"containers/filer.Dockerfile":      engineDockerfile(img, "filer"),
		"pyproject.toml":                   fmt.Sprintf("# bench run %d\n%s", time.Now().UnixNano(), pyproject),
	})
	job := func(label string) time.Duration {
		out := b.TempDir()
		start := time.Now()
		r := remote.cli(b, nil, "", "call", "--source", src, "--pin", "python-3.13="+img, "--pin", "uv="+img, "--pin", "go="+img,
			"--pin", "trivy="+trivyImage, "--pin", "k3s="+img,
			"ci", "--python", "3.13", "--pr-title", "fix(filer): retry uploads", "export", "--path", out)
		wall := time.Since(start)
		if _, err := os.Stat(filepath.Join(out, "summary.md")); err != nil {
			b.Fatalf("%s ci exported no summary.md (%v):\n%s", label, err, r)
		}
		return wall
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		first := job("first")
		second := job("second")
		leaf := filepath.Join(remote.module, "internal", "conventional", "conventional.go")
		f, err := os.OpenFile(leaf, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		_, err = fmt.Fprintf(f, "\n// A constant added since the last load.\nconst benchUpgrade = %d\n", time.Now().UnixNano())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			b.Fatal(err)
		}
		upgrade := job("upgrade")
		b.Logf("ci over TCP: first %.1f s, second %.1f s, after a module upgrade %.1f s", first.Seconds(), second.Seconds(), upgrade.Seconds())
		b.ReportMetric(first.Seconds(), "first-ci-s")
		b.ReportMetric(second.Seconds(), "second-ci-s")
		b.ReportMetric(upgrade.Seconds(), "upgrade-ci-s")
	}
}
