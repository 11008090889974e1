package gitserve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
)

// seed makes a repository of two commits on dev, main at the second, and an annotated
// tag of it, as the demo's is; files in a subfolder, so trees nest.
func seed(t *testing.T) (*githubsim.Repo, string, string) {
	t.Helper()
	sim := githubsim.New(t)
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	first := Commit(repo, "dev", "feat: first", map[string]string{"README.md": "# tesk-core\n", "src/a/b.py": "B = 1\n"})
	second := Commit(repo, "dev", "chore: release v0.11.0", map[string]string{"docs/releases/0.11.0.md": "Notes.\n", "src/a.py": "A = 1\n"})
	repo.SetBranch("main", second)
	repo.AnnotatedTag("v0.11.0", second, githubsim.ValidSignature())
	return repo, first, second
}

// git runs the real git CLI in dir, in a clean configuration.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func needGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git CLI is not on PATH: these tests are the real client's view of the server")
	}
}

// Git itself computes the same commit IDs Commit gives the simulator, and lists the
// simulator's refs, tags peeled to their commits.
func TestRealGitSeesTheSimulatorsCommits(t *testing.T) {
	needGit(t)
	repo, first, second := seed(t)
	srv := httptest.NewServer(Handler(repo))
	defer srv.Close()
	url := srv.URL + "/elixir-cloud-aai/tesk-core.git"

	refs := git(t, t.TempDir(), "ls-remote", "--symref", url)
	for _, want := range []string{"ref: refs/heads/main\tHEAD", second + "\tHEAD", second + "\trefs/heads/dev",
		second + "\trefs/heads/main", second + "\trefs/tags/v0.11.0"} {
		if !strings.Contains(refs, want) {
			t.Errorf("ls-remote lacks %q:\n%s", want, refs)
		}
	}

	clone := filepath.Join(t.TempDir(), "clone")
	git(t, filepath.Dir(clone), "clone", "-q", "--branch", "dev", url, clone)
	if got := git(t, clone, "rev-parse", "HEAD", "HEAD~1"); got != second+"\n"+first {
		t.Errorf("the clone's history is %q, want %s then %s", got, second, first)
	}
	git(t, clone, "fsck", "--strict")
	for p, want := range repo.Files(second) {
		got, err := os.ReadFile(filepath.Join(clone, p))
		if err != nil || string(got) != want {
			t.Errorf("%s in the clone: %q, %v; want %q", p, got, err, want)
		}
	}
}

// Dagger's git API fetches one commit by its SHA, one commit deep: the server sends that
// commit alone, marked shallow.
func TestShallowFetchBySHA(t *testing.T) {
	needGit(t)
	repo, _, second := seed(t)
	srv := httptest.NewServer(Handler(repo))
	defer srv.Close()

	dir := t.TempDir()
	git(t, dir, "init", "-q")
	git(t, dir, "remote", "add", "origin", srv.URL+"/elixir-cloud-aai/tesk-core")
	git(t, dir, "fetch", "--no-tags", "--depth=1", "origin", second)
	if got := git(t, dir, "rev-list", "FETCH_HEAD"); got != second {
		t.Errorf("rev-list after a fetch one commit deep: %q, want only %s", got, second)
	}
	if got := git(t, dir, "cat-file", "-p", second+":src/a.py"); got != "A = 1" {
		t.Errorf("src/a.py at the fetched commit: %q", got)
	}
	if shallow, err := os.ReadFile(filepath.Join(dir, ".git", "shallow")); err != nil || strings.TrimSpace(string(shallow)) != second {
		t.Errorf(".git/shallow = %q, %v; want %s", shallow, err, second)
	}
}

// A client that has the first commit says so; it gets no acknowledgement, and the whole
// history it asks for.
func TestFetchWithHaves(t *testing.T) {
	needGit(t)
	repo, first, second := seed(t)
	srv := httptest.NewServer(Handler(repo))
	defer srv.Close()

	dir := t.TempDir()
	git(t, dir, "init", "-q")
	git(t, dir, "remote", "add", "origin", srv.URL+"/elixir-cloud-aai/tesk-core.git")
	git(t, dir, "fetch", "--no-tags", "origin", first+":refs/heads/old")
	git(t, dir, "fetch", "--no-tags", "origin", second+":refs/heads/new")
	if got := git(t, dir, "rev-list", "new"); got != second+"\n"+first {
		t.Errorf("rev-list new: %q", got)
	}
	git(t, dir, "fsck", "--strict")
}

// A commit made some other way has a SHA that is not its git object ID: the server
// refuses to offer the repository, naming the commit and the fix, rather than serve it
// under an ID that differs from the REST API's.
func TestRefusesACommitThatIsNotAGitCommit(t *testing.T) {
	sim := githubsim.New(t)
	repo := sim.AddRepo("o", "r")
	sha := repo.CommitOnBranch("main", "made by the simulator", map[string]string{"a": "1\n"})
	srv := httptest.NewServer(Handler(repo))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/o/r.git/info/refs?service=git-upload-pack")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body := new(strings.Builder)
	_, _ = io.Copy(body, resp.Body)
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(body.String(), "commit "+sha+" is not a git commit") ||
		!strings.Contains(body.String(), "gitserve.Commit") {
		t.Errorf("status %d, body %q", resp.StatusCode, body)
	}
}

// What the server does not serve is refused plainly: other repositories, pushes, the dumb
// protocol, and requests that are not upload-pack's.
func TestRefusals(t *testing.T) {
	repo, _, _ := seed(t)
	srv := httptest.NewServer(Handler(repo))
	defer srv.Close()
	for _, tc := range []struct {
		method, path, body, says string
		status                   int
	}{
		{"GET", "/other/repo.git/info/refs?service=git-upload-pack", "", "Repository not found", http.StatusNotFound},
		{"GET", "/elixir-cloud-aai/tesk-core.git/info/refs?service=git-receive-pack", "", "only git-upload-pack", http.StatusForbidden},
		{"GET", "/elixir-cloud-aai/tesk-core.git/info/refs", "", "only git-upload-pack", http.StatusForbidden},
		{"POST", "/elixir-cloud-aai/tesk-core.git/git-receive-pack", "", "not served", http.StatusNotFound},
		{"POST", "/elixir-cloud-aai/tesk-core.git/git-upload-pack", "0000", "wants nothing", http.StatusBadRequest},
		{"POST", "/elixir-cloud-aai/tesk-core.git/git-upload-pack", "zzzz", "pkt-line length", http.StatusBadRequest},
		{"POST", "/elixir-cloud-aai/tesk-core.git/git-upload-pack", "000dpush abc\n0000", `"push" is not served`, http.StatusBadRequest},
		{"POST", "/elixir-cloud-aai/tesk-core.git/git-upload-pack", "0032want " + strings.Repeat("a", 40) + "\n000ddeepen 0\n0000", "want a positive number", http.StatusBadRequest},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.says) {
			t.Errorf("%s %s %q: %d %q, want %d saying %q", tc.method, tc.path, tc.body, resp.StatusCode, body, tc.status, tc.says)
		}
	}
}

// A want of a commit the repository does not have is answered with git's error line.
func TestUnknownWant(t *testing.T) {
	repo, _, _ := seed(t)
	srv := httptest.NewServer(Handler(repo))
	defer srv.Close()
	want := strings.Repeat("b", 40)
	resp, err := http.Post(srv.URL+"/elixir-cloud-aai/tesk-core.git/git-upload-pack", "application/x-git-upload-pack-request",
		strings.NewReader("0032want "+want+"\n00000009done\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "ERR upload-pack: not our ref "+want) {
		t.Errorf("answer %q", body)
	}
}
