//go:build realengine

package realengine

import (
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
)

// teskCoreGit makes a real git repository of a tesk-core-like project prepared for v0.11.0
// (images built on the local base image, CITATION.cff and the curated notes set), tags it
// with an annotated v0.11.0, and imports the same history into the GitHub simulator under
// the same SHAs, with CI passed for its push to dev and main moved to it. It serves the
// repository over git's smart HTTP protocol and returns its URL.
func teskCoreGit(t *testing.T, repo *githubsim.Repo) (gitURL, sha string) {
	t.Helper()
	gitURL, shas := teskCoreGitTags(t, repo, "v0.11.0")
	return gitURL, shas[0]
}

// teskCoreGitTags is teskCoreGit with one release commit per tag (vX.Y.Z, in order), each
// tagged, with CI passed for its push to dev; dev and main end on the last.
func teskCoreGitTags(t *testing.T, repo *githubsim.Repo, tags ...string) (gitURL string, shas []string) {
	t.Helper()
	return teskCoreGitWith(t, repo, nil, tags...)
}

// teskCoreGitWith is teskCoreGitTags with extra files in every release commit (a pins
// file, say).
func teskCoreGitWith(t *testing.T, repo *githubsim.Repo, extra map[string]string, tags ...string) (gitURL string, shas []string) {
	t.Helper()
	work := filepath.Join(t.TempDir(), "tesk-core")
	src := imageProject(t)
	files := map[string]string{}
	for p, c := range extra {
		files[p] = c
	}
	if err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(src, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), gitIdentity("Release Admin", "admin@example.org")...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "-q", "-b", "dev")
	var parents []string
	for _, tag := range tags {
		version := strings.TrimPrefix(tag, "v")
		files["CITATION.cff"] = "cff-version: 1.2.0\ntitle: tesk-core\nversion: " + version + "\ndate-released: 2026-11-02\n"
		files["docs/releases/"+version+".md"] = "Brings signed images.\n\n## Features\n\n- Sign both images (#101, #102)\n"
		for p, c := range files {
			write(t, filepath.Join(work, p), c)
		}
		git("add", "-A")
		git("commit", "-q", "-m", "chore: release "+tag)
		git("tag", "-a", tag, "-m", tag)
		sha := git("rev-parse", "HEAD")
		snapshot := make(map[string]string, len(files))
		for k, v := range files {
			snapshot[k] = v
		}
		repo.ImportCommit(sha, "chore: release "+tag, parents, snapshot)
		repo.AnnotatedTag(tag, sha, githubsim.ValidSignature())
		repo.AddWorkflowRun(githubsim.WorkflowRun{Workflow: "ci.yml", Event: "push", HeadBranch: "dev",
			HeadSHA: sha, Status: "completed", Conclusion: "success"})
		parents = []string{sha}
		shas = append(shas, sha)
	}
	repo.SetBranch("dev", shas[len(shas)-1])
	repo.SetBranch("main", shas[len(shas)-1])

	bare := filepath.Join(t.TempDir(), "git")
	cmd := exec.Command("git", "clone", "-q", "--bare", work, filepath.Join(bare, "tesk-core.git"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git clone --bare: %v\n%s", err, out)
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	h := &cgi.Handler{Path: gitBin, Args: []string{"http-backend"},
		Env: []string{"GIT_PROJECT_ROOT=" + bare, "GIT_HTTP_EXPORT_ALL=1"}}
	return serveStable(t, "git", http.StripPrefix("", h)) + "/tesk-core.git", shas
}

// The release rehearsed on a real engine: the gates through the GitHub simulator, the
// tagged source fetched with Dagger's git API and checked against the gated commit, both
// images built for linux/amd64 and linux/arm64, the package version checked inside each, the built images scanned (by
// real Trivy), and the GitHub release body composed — with nothing published. The tagged
// commit's .shipyard/pins.Dockerfile names the Trivy whose advisories gate the release
// (a fixable CRITICAL): the release runs that Trivy and stops at the scan, and --pin, which
// wins for one run, names the one that passes.
//
// It runs as a team's runner does on a shared engine: from its own checkout, reaching the
// engine only over TCP (remoteClient, remote_test.go).
func TestReleaseDryRun(t *testing.T) {
	t.Parallel()
	remote := remoteClient(t)
	sim := githubsim.New(t)
	sim.AddToken(ghToken, githubsim.Token{PushAccess: true})
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	gitURL, shas := teskCoreGitWith(t, repo, map[string]string{".shipyard/pins.Dockerfile": "FROM " + trivyGateImage + " AS trivy\n"}, "v0.11.0")
	sha := shas[0]
	api := publishGitHubStable(t, sim)

	before := len(repo.Releases())
	gated := remote.cli(t, ghEnv, "", append([]string{"call"}, append(ghArgs(api), "--pin", "go="+baseImage,
		"release", "--tag", "v0.11.0", "--dry-run", "--git-url", gitURL)...)...)
	if gated.err == nil {
		t.Errorf("the release passed the scan of the tagged tree's Trivy, whose advisories block it:\n%s", gated)
	}
	mustContain(t, "the dry run with the tagged tree's Trivy", gated.stdout+gated.stderr, "scan-digests", vulnFixableCritical)
	out := remote.call(t, ghEnv, append(ghArgs(api), "--pin", "trivy="+trivyImage, "--pin", "go="+baseImage,
		"release", "--tag", "v0.11.0", "--dry-run", "--git-url", gitURL)...)
	// Both default platforms, each built (arm64 under the emulator), version-checked and
	// scanned: the report lists each platform image with its scan.
	mustContain(t, "the dry run's report", out, "0.11.0", "tesk-core-taskmaster", "tesk-core-filer",
		"linux/amd64: sha256:", "linux/arm64: sha256:", "(scan passed)")
	if got := len(repo.Releases()); got != before {
		t.Errorf("a dry run created a release (%d before, %d after)", before, got)
	}
	// generate-notes is a POST that creates nothing; the body it answers is part of the
	// dry run's report.
	for _, w := range sim.Writes() {
		if !strings.HasSuffix(w.Path, "/releases/generate-notes") {
			t.Errorf("a dry run wrote to GitHub: %s %s", w.Method, w.Path)
		}
	}
	mustContain(t, "the dry run's report", out, sha[:12])
}
