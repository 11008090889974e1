package githubactions

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// shipyardPin is a Git address of the module pinned to a full commit SHA: a branch, a tag
// or a short SHA could be moved or made ambiguous under the workflows.
var shipyardPin = regexp.MustCompile(`^github\.com/[\w.-]+/[\w.-]+@[0-9a-f]{40}$`)

// TestShipyardPinnedToACommit checks that every wrapper calls the module only as
// -m "$SHIPYARD", that SHIPYARD is written in the workflow (reviewed with it, not a
// variable) as an address at a full commit SHA, and that all wrappers pin the same one.
func TestShipyardPinnedToACommit(t *testing.T) {
	moduleFlag := regexp.MustCompile(`dagger\s+call\s+(?:-m|--mod)[ =](\S+)`)
	pins := map[string]string{}
	for _, f := range workflows(t) {
		w := readWorkflow(t, f)
		calls := 0
		for name, j := range w.Jobs {
			for _, s := range j.Steps {
				if !strings.Contains(s.Run, "dagger call") {
					continue
				}
				for _, line := range strings.Split(s.Run, "\n") {
					if !strings.Contains(line, "dagger call") {
						continue
					}
					calls++
					m := moduleFlag.FindStringSubmatch(line)
					if m == nil || m[1] != `"$SHIPYARD"` {
						t.Errorf("%s: job %s step %q: dagger call without -m \"$SHIPYARD\": %s", f, name, s.Name, strings.TrimSpace(line))
					}
				}
				if _, ok := s.Env["SHIPYARD"]; ok {
					t.Errorf("%s: job %s step %q overrides SHIPYARD", f, name, s.Name)
				}
			}
			if _, ok := j.Env["SHIPYARD"]; ok {
				t.Errorf("%s: job %s overrides SHIPYARD", f, name)
			}
		}
		if calls == 0 {
			continue
		}
		pin, _ := w.Env["SHIPYARD"].(string)
		if !shipyardPin.MatchString(pin) {
			t.Errorf("%s: SHIPYARD is %q; want the module's address at a full commit SHA, e.g. github.com/<org>/shipyard@<40 hex digits>", f, pin)
		}
		pins[f] = pin
	}
	var first string
	for f, pin := range pins {
		if first == "" {
			first = pin
		}
		if pin != first {
			t.Errorf("%s pins %s, another wrapper %s: pin every wrapper to the same commit", f, pin, first)
		}
	}
	if len(pins) == 0 {
		t.Fatal("no wrapper calls the module")
	}
}

func TestShipyardPinPattern(t *testing.T) {
	for _, tt := range []struct {
		pin string
		ok  bool
	}{
		{"github.com/elixir-cloud-aai/shipyard@4a07d756010dcad18103e57c9a44ebe03e5b28a3", true},
		{"${{ vars.SHIPYARD_MODULE }}", false},
		{"github.com/elixir-cloud-aai/shipyard@v1.2.0", false},
		{"github.com/elixir-cloud-aai/shipyard@main", false},
		{"github.com/elixir-cloud-aai/shipyard@4a07d75", false},
		{"github.com/elixir-cloud-aai/shipyard", false},
		{"github.com/elixir-cloud-aai/shipyard@4A07D756010DCAD18103E57C9A44EBE03E5B28A3", false},
	} {
		if got := shipyardPin.MatchString(tt.pin); got != tt.ok {
			t.Errorf("%q: pinned %v, want %v", tt.pin, got, tt.ok)
		}
	}
}

// TestSecretsOnlyInEnvironments checks that a job reading a repository secret (anything
// but the run's own GITHUB_TOKEN) runs in an environment, whose branch rules decide which
// runs may read it: CI_GITHUB_TOKEN, registry logins.
func TestSecretsOnlyInEnvironments(t *testing.T) {
	secretRef := regexp.MustCompile(`\$\{\{\s*secrets\.(\w+)\s*\}\}`)
	seen := map[string]bool{}
	for _, f := range workflows(t) {
		w := readWorkflow(t, f)
		for name, j := range w.Jobs {
			var secrets []string
			for _, s := range j.Steps {
				for _, v := range s.Env {
					for _, m := range secretRef.FindAllStringSubmatch(v, -1) {
						if m[1] != "GITHUB_TOKEN" {
							secrets = append(secrets, m[1])
						}
					}
				}
			}
			for _, v := range j.Env {
				for _, m := range secretRef.FindAllStringSubmatch(v, -1) {
					if m[1] != "GITHUB_TOKEN" {
						secrets = append(secrets, m[1])
					}
				}
			}
			for _, s := range secrets {
				seen[s] = true
			}
			if len(secrets) > 0 && j.Environment.Kind == 0 {
				t.Errorf("%s: job %s reads %v without an environment: put the secret in an environment that allows only the branches or tags that need it", f, name, secrets)
			}
		}
	}
	if !seen["CI_GITHUB_TOKEN"] {
		t.Error("no wrapper reads CI_GITHUB_TOKEN: the test no longer covers it")
	}
}

// jobPermissions reads a job's permissions mapping (scope → level).
func jobPermissions(t *testing.T, j job) map[string]string {
	t.Helper()
	out := map[string]string{}
	if j.Permissions.Kind == 0 {
		return out
	}
	if err := j.Permissions.Decode(&out); err != nil {
		return map[string]string{"*": j.Permissions.Value} // read-all / write-all
	}
	return out
}

// TestPyPIUploadJobRunsNoRepositoryCode checks PyPA's advice for trusted publishing: the
// build runs in a job without id-token: write, and the job that can mint the token only
// downloads the checked files and uploads them, running nothing of the repository.
func TestPyPIUploadJobRunsNoRepositoryCode(t *testing.T) {
	f := filepath.Join("cloudcoil", "pypi_publish.yml")
	w := readWorkflow(t, f)
	uploads := 0
	for name, j := range w.Jobs {
		perms := jobPermissions(t, j)
		canMint := perms["id-token"] == "write" || perms["*"] == "write-all"
		uploadsHere := false
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, "pypa/gh-action-pypi-publish@") {
				uploadsHere = true
			}
		}
		if uploadsHere {
			uploads++
			if j.Environment.Kind == 0 {
				t.Errorf("%s: upload job %s has no environment (the trusted publisher names it)", f, name)
			}
		}
		if !canMint {
			continue
		}
		if !uploadsHere {
			t.Errorf("%s: job %s has id-token: write but uploads nothing", f, name)
		}
		for _, s := range j.Steps {
			switch {
			case s.Run != "":
				t.Errorf("%s: job %s can mint the PyPI token and runs a script (step %q): build in another job", f, name, s.Name)
			case strings.HasPrefix(s.Uses, "actions/download-artifact@"), strings.HasPrefix(s.Uses, "pypa/gh-action-pypi-publish@"):
			default:
				t.Errorf("%s: job %s can mint the PyPI token and uses %s: only download the built files and upload them", f, name, s.Uses)
			}
		}
	}
	if uploads != 1 {
		t.Fatalf("%s: %d upload jobs, want 1", f, uploads)
	}
}

// TestPyPIBuildChecksTheTagCommit runs the build job's tag check, as written in the
// workflow, in a real Git checkout: the tag at the release's target passes; a tag that
// points elsewhere (GitHub ignores target_commitish for an existing tag) stops the job
// before anything is built. A release that targets a branch (one drafted before Shipyard)
// passes when its tag is on that branch, so publish-check gives its own verdict.
func TestPyPIBuildChecksTheTagCommit(t *testing.T) {
	f := filepath.Join("cloudcoil", "pypi_publish.yml")
	w := readWorkflow(t, f)
	const checkName = "The tag is at the release's commit"
	var script string
	for _, j := range w.Jobs {
		check, build := -1, -1
		for i, s := range j.Steps {
			if s.Name == checkName {
				check, script = i, s.Run
				if s.Env["TARGET"] != "${{ github.event.release.target_commitish }}" {
					t.Errorf("%s: the check compares with %q, want the release's target_commitish", f, s.Env["TARGET"])
				}
			}
			if strings.Contains(s.Run, "publish-check") {
				build = i
			}
			if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["fetch-depth"] != "0" {
				t.Errorf("%s: the checkout fetches depth %q; the tag check of a release that targets a branch needs every branch (fetch-depth: 0)", f, s.With["fetch-depth"])
			}
		}
		if build >= 0 && (check < 0 || check > build) {
			t.Fatalf("%s: publish-check runs without the tag check %q before it", f, checkName)
		}
	}
	if script == "" {
		t.Fatalf("%s: no step %q", f, checkName)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("commit", "-q", "--allow-empty", "-m", "built by model-release")
	built := git("rev-parse", "HEAD")
	git("commit", "-q", "--allow-empty", "-m", "a stray commit a tag was left on")
	stray := git("rev-parse", "HEAD")

	run := func(target string) (string, error) {
		cmd := exec.Command("bash", "-e", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TARGET="+target)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	git("checkout", "-q", built)
	if out, err := run(built); err != nil {
		t.Errorf("tag at the target: %v\n%s", err, out)
	}
	git("checkout", "-q", stray)
	out, err := run(built)
	if err == nil || !strings.Contains(out, "not at its target commit "+built) {
		t.Errorf("tag elsewhere passed: %v\n%s", err, out)
	}
	// A release drafted before Shipyard targets its line's branch: its tag must be on the
	// branch (fetched as origin's), which may have moved on since GitHub tagged its head.
	git("update-ref", "refs/remotes/origin/release-1.15", built)
	git("checkout", "-q", built)
	if out, err := run("release-1.15"); err != nil {
		t.Errorf("a tag at the head of its target branch: %v\n%s", err, out)
	}
	git("update-ref", "refs/remotes/origin/release-1.15", stray)
	if out, err := run("release-1.15"); err != nil {
		t.Errorf("a tag on its target branch, which moved on: %v\n%s", err, out)
	}
	git("checkout", "-q", "--orphan", "elsewhere")
	git("commit", "-q", "--allow-empty", "-m", "a commit on no release branch")
	out, err = run("release-1.15")
	if err == nil || !strings.Contains(out, "targets the branch release-1.15, and its tag is at "+git("rev-parse", "HEAD")+", which is not on it") {
		t.Errorf("a tag off its target branch passed: %v\n%s", err, out)
	}
	if out, err := run("no-such-branch"); err == nil {
		t.Errorf("a target branch that does not exist passed:\n%s", out)
	}
}

// TestTagMovingReleaseJobsAreSerialised checks that the release jobs that move image tags
// (release-publish; release, the whole flow) and GitHub's latest release
// (release-publish-release) each run in a fixed concurrency group that never cancels a
// running job, so two releases cannot interleave their rechecks and writes.
func TestTagMovingReleaseJobsAreSerialised(t *testing.T) {
	moving := regexp.MustCompile(`dagger call .*\b(release-publish|release-publish-release|release)\s`)
	found := 0
	for _, f := range workflows(t) {
		w := readWorkflow(t, f)
		for name, j := range w.Jobs {
			moves := false
			for _, s := range j.Steps {
				if moving.MatchString(strings.Join(strings.Fields(strings.ReplaceAll(s.Run, "\\\n", " ")), " ") + " ") {
					moves = true
				}
			}
			if !moves {
				continue
			}
			found++
			group, cancels := j.Concurrency.Group, j.Concurrency.Cancels()
			if group == "" {
				group, cancels = w.Concurrency.Group, w.Concurrency.Cancels()
			}
			switch {
			case group == "":
				t.Errorf("%s: job %s moves tags without a concurrency group", f, name)
			case strings.Contains(group, "${{"):
				t.Errorf("%s: job %s: concurrency group %q varies between runs, so releases would not queue", f, name, group)
			case cancels:
				t.Errorf("%s: job %s: cancel-in-progress would cancel a running release", f, name)
			}
		}
	}
	if found < 2 {
		t.Fatalf("found %d tag-moving release jobs, want the publish and publish-release jobs", found)
	}
}

// node24Majors is the first major of each JavaScript action the wrappers use whose action.yml
// runs on node24 (its `runs.using`, read at each release tag). GitHub's runners moved to
// Node 24 on 2026-09-16, and run a node20 action with a deprecation warning until they drop
// it. Composite and container actions (dagger-for-github, codecov, pypi-publish) and
// codeql-action v4 are not listed: they do not run on a runner's Node.
var node24Majors = map[string]int{
	"actions/checkout":          5,
	"actions/upload-artifact":   6,
	"actions/download-artifact": 7,
}

// TestJavaScriptActionsRunOnNode24 reads each pinned action's version from the comment
// that names it (`@<commit> # vX.Y.Z`, what Renovate and Dependabot keep) in the wrappers and
// in the workflows Shipyard writes into Cloudcoil's template.
func TestJavaScriptActionsRunOnNode24(t *testing.T) {
	files := workflows(t)
	template, err := filepath.Glob(filepath.Join("..", "..", "models", "genrepo", "template", "*.yml"))
	if err != nil || len(template) == 0 {
		t.Fatalf("the template patch's workflows: %v (%d files)", err, len(template))
	}
	uses := regexp.MustCompile(`uses:\s*([\w.-]+/[\w.-]+)(?:/[\w./-]+)?@[0-9a-f]{40}(?:\s*#\s*v?(\d+)[^\s]*)?`)
	checked := 0
	for _, f := range append(files, template...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			m := uses.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			first, ok := node24Majors[m[1]]
			if !ok {
				continue
			}
			checked++
			if m[2] == "" {
				t.Errorf("%s:%d: %s is pinned without its version as a comment (`@<commit> # vX.Y.Z`)", f, i+1, m[1])
				continue
			}
			if major, _ := strconv.Atoi(m[2]); major < first {
				t.Errorf("%s:%d: %s v%s runs on node20; pin v%d or later (its commit, with the version as a comment)", f, i+1, m[1], m[2], first)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no pinned JavaScript action found in the workflows")
	}
}
