package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dagger.io/dagger"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestDirectoryDigestFollowsContent(t *testing.T) {
	ctx := context.Background()
	c := New(t).Client(ctx)
	base := map[string]string{"src/a.py": "a = 1\n", "docs/index.md": "# x\n"}
	changedDocs := map[string]string{"src/a.py": "a = 1\n", "docs/index.md": "# y\n"}
	one := c.Host().Directory(writeTree(t, base))
	two := c.Host().Directory(writeTree(t, base))
	three := c.Host().Directory(writeTree(t, changedDocs))
	digest := func(d *dagger.Directory) string {
		t.Helper()
		s, err := d.Digest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if digest(one) != digest(two) {
		t.Fatal("equal trees in different folders have different digests")
	}
	if digest(one) == digest(three) {
		t.Fatal("a changed file did not change the digest")
	}
	noDocs := dagger.DirectoryFilterOpts{Exclude: []string{"docs/"}}
	if digest(one.Filter(noDocs)) != digest(three.Filter(noDocs)) {
		t.Fatal("filtering out the only difference left different digests")
	}
	// A folder an exec wrote has unknown contents: its digest is the chain's, still stable.
	out := c.Container().From("alpine").WithExec([]string{"sh", "-c", "echo > /out/x"}).Directory("/out")
	if digest(out) != digest(out) || digest(out) == digest(one) {
		t.Fatal("an exec's output folder digest is not stable or collides")
	}
}

func TestExecRuleRunsAProgram(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	var seen []string
	e.OnExec(ExecRule{ArgsContain: "tool", Run: func(x Exec) (string, string, int) {
		seen = x.Args
		if x.Env["MODE"] != "sign" {
			return "", "wrong mode", 3
		}
		return "signed " + x.Args[len(x.Args)-1], "", 0
	}})
	c := e.Client(ctx)
	out, err := c.Container().From("alpine").WithEnvVariable("MODE", "sign").WithExec([]string{"tool", "--image", "r@sha256:1"}).Stdout(ctx)
	if err != nil || out != "signed r@sha256:1" || len(seen) != 3 {
		t.Fatalf("out %q err %v seen %v", out, err, seen)
	}
	_, err = c.Container().From("alpine").WithExec([]string{"tool", "x"}).Sync(ctx)
	var ee *dagger.ExecError
	if !errors.As(err, &ee) || ee.ExitCode != 3 || ee.Stderr != "wrong mode" {
		t.Fatalf("want exit 3 from the program, got %v", err)
	}
}

func TestExportRuleWritesBytes(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	e.OnExport(ExportRule{Kind: "Container", ChainContains: "app", Write: func(p string) error {
		return os.WriteFile(p, []byte("tarball"), 0o644)
	}})
	e.OnExport(ExportRule{Kind: "Container", ChainContains: "broken", Write: func(string) error {
		return errors.New("disk full")
	}})
	c := e.Client(ctx)
	target := filepath.Join(t.TempDir(), "image.tar")
	if _, err := c.Container().From("app:1").Export(ctx, target); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "tarball" {
		t.Fatalf("export wrote %q, %v", b, err)
	}
	_, err := c.Container().From("broken:1").Export(ctx, target+"2")
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("export error %v", err)
	}
	if n := len(e.Graph().Exports()); n != 2 {
		t.Fatalf("exports recorded %d, want 2", n)
	}
}

func TestCriticalPath(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	c := e.Client(ctx)
	base := c.Container().From("alpine").WithExec([]string{"step", "1"}).WithExec([]string{"step", "2"})
	// Two branches off the shared prefix; the second also needs a third container's output.
	side := c.Container().From("alpine").WithExec([]string{"side", "1"})
	a := base.WithExec([]string{"a"})
	b := base.WithDirectory("/in", side.Directory("/out")).WithExec([]string{"b"}).WithExec([]string{"b2"})
	if _, err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.Graph().CriticalPath(); got != 3 {
		t.Fatalf("after a: critical path %d, want 3", got)
	}
	if _, err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.Graph().CriticalPath(); got != 4 {
		t.Fatalf("after b: critical path %d, want 4 (step1, step2, b, b2)", got)
	}
	dep := c.Container().From("alpine").WithDirectory("/x", b.Directory("/")).WithExec([]string{"last"})
	if _, err := dep.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.Graph().CriticalPath(); got != 5 {
		t.Fatalf("a dependency on b's output: critical path %d, want 5", got)
	}
}

// Directory.asGit reads the checkout's own history: HEAD's commit, through a branch's loose
// ref or packed-refs, or detached; a directory without .git has none, as on a real engine.
func TestAsGitHeadIsTheCheckoutsCommit(t *testing.T) {
	ctx := context.Background()
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
		err   string
	}{
		{"a branch's loose ref", map[string]string{".git/HEAD": "ref: refs/heads/dev\n", ".git/refs/heads/dev": a + "\n", ".git/packed-refs": b + " refs/heads/dev\n"}, a, ""},
		{"a packed ref", map[string]string{".git/HEAD": "ref: refs/heads/dev\n", ".git/packed-refs": "# pack-refs with: peeled\n" + b + " refs/heads/dev\n"}, b, ""},
		{"detached", map[string]string{".git/HEAD": a + "\n"}, a, ""},
		{"a branch the checkout lacks", map[string]string{".git/HEAD": "ref: refs/heads/main\n"}, "", "refs/heads/main"},
		{"no .git", map[string]string{"README.md": "x"}, "", "not a Git checkout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := writeTree(t, tc.files)
			e := New(t)
			got, err := e.Client(ctx).Host().Directory(root).AsGit().Head().Commit(ctx)
			if got != tc.want || (tc.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Errorf("commit = %q, %v; want %q, error containing %q", got, err, tc.want, tc.err)
			}
		})
	}
}

// A checkout's own history resolves a ref name as Dagger v0.21.8's lookup does
// (util/gitutil/ls_remote.go, Remote.Lookup): the name, refs/<name>, refs/heads/<name>,
// refs/tags/<name>, and never refs/remotes/<name>. The checkout here is shaped as
// actions/checkout leaves a pull request's: HEAD detached at the merge commit,
// origin's branches under refs/remotes/origin, no local main.
func TestAsGitRefLooksUpAsDagger(t *testing.T) {
	ctx := context.Background()
	a, b, c, d, e2, f := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40), strings.Repeat("d", 40), strings.Repeat("e", 40), strings.Repeat("f", 40)
	root := writeTree(t, map[string]string{
		".git/HEAD":                      a + "\n",
		".git/refs/remotes/origin/main":  b + "\n",
		".git/refs/remotes/origin/HEAD":  "ref: refs/remotes/origin/main\n",
		".git/refs/remotes/pull/1/merge": a + "\n",
		".git/refs/heads/dev":            e2 + "\n",
		".git/packed-refs":               "# pack-refs with: peeled fully-peeled sorted\n" + c + " refs/tags/v1\n^" + d + "\n" + f + " refs/heads/dev\n",
		"README.md":                      "x\n",
	})
	none := writeTree(t, map[string]string{"README.md": "x\n"})
	for _, tc := range []struct {
		name      string
		ref       func(*dagger.GitRepository) *dagger.GitRef
		dir       string
		sha, full string
		err       string
	}{
		{"a remote-tracking branch as git users write it", func(r *dagger.GitRepository) *dagger.GitRef { return r.Ref("origin/main") }, root, "", "", `repository does not contain ref "origin/main"`},
		{"remotes/<remote>/<branch> (refs/ added)", func(r *dagger.GitRepository) *dagger.GitRef { return r.Ref("remotes/origin/main") }, root, b, "refs/remotes/origin/main", ""},
		{"the full remote-tracking ref", func(r *dagger.GitRepository) *dagger.GitRef { return r.Ref("refs/remotes/origin/main") }, root, b, "refs/remotes/origin/main", ""},
		{"a symbolic ref, at its target's commit", func(r *dagger.GitRepository) *dagger.GitRef { return r.Ref("refs/remotes/origin/HEAD") }, root, b, "refs/remotes/origin/HEAD", ""},
		{"a local branch, its loose ref over packed-refs", func(r *dagger.GitRepository) *dagger.GitRef { return r.Ref("dev") }, root, e2, "refs/heads/dev", ""},
		{"a packed annotated tag, peeled", func(r *dagger.GitRepository) *dagger.GitRef { return r.Ref("v1") }, root, d, "refs/tags/v1", ""},
		{"Tag qualifies the name", func(r *dagger.GitRepository) *dagger.GitRef { return r.Tag("v1") }, root, d, "refs/tags/v1", ""},
		{"Branch qualifies the name", func(r *dagger.GitRepository) *dagger.GitRef { return r.Branch("dev") }, root, e2, "refs/heads/dev", ""},
		{"Branch of a remote-tracking name", func(r *dagger.GitRepository) *dagger.GitRef { return r.Branch("origin/main") }, root, "", "", `repository does not contain ref "refs/heads/origin/main"`},
		{"a local branch the checkout lacks", func(r *dagger.GitRepository) *dagger.GitRef { return r.Ref("main") }, root, "", "", `repository does not contain ref "main"`},
		{"HEAD, detached", func(r *dagger.GitRepository) *dagger.GitRef { return r.Ref("HEAD") }, root, a, "HEAD", ""},
		{"a full commit SHA stands for itself", func(r *dagger.GitRepository) *dagger.GitRef { return r.Ref(f) }, root, f, f, ""},
		{"no .git", func(r *dagger.GitRepository) *dagger.GitRef { return r.Ref("main") }, none, "", "", "not a Git checkout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(t)
			ref := tc.ref(e.Client(ctx).Host().Directory(tc.dir).AsGit())
			sha, err := ref.Commit(ctx)
			if sha != tc.sha || (tc.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("commit = %q, %v; want %q, error containing %q", sha, err, tc.sha, tc.err)
			}
			if err != nil {
				return
			}
			if name, err := ref.Ref(ctx); err != nil || name != tc.full {
				t.Errorf("ref = %q, %v; want %q", name, err, tc.full)
			}
		})
	}
}

// A tree the double knows by its rules only (a git commit's, as teskrepo.ServeTree serves
// it) has the files and folders those rules give, as Directory.exists on a real engine
// reports them: a file's rule, or a folder's entries, at that path of that commit.
func TestExistsOnATreeKnownByRules(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	const commit = `commit(id:"0123456789abcdef0123456789abcdef01234567")`
	e.OnFile(FileRule{Path: ".shipyard/pins.Dockerfile", ChainContains: commit, Contents: "FROM x AS trivy\n"})
	e.OnEntries(DirRule{Path: "containers", ChainContains: commit, Entries: []string{"filer.Dockerfile"}})
	c := e.Client(ctx)
	tree := c.Git("https://github.com/x/y").Commit("0123456789abcdef0123456789abcdef01234567").Tree()
	other := c.Git("https://github.com/x/y").Commit("fedcba9876543210fedcba9876543210fedcba98").Tree()
	for _, tc := range []struct {
		name string
		dir  *dagger.Directory
		path string
		want bool
	}{
		{"a file of the commit", tree, ".shipyard/pins.Dockerfile", true},
		{"a folder of the commit", tree, "containers", true},
		{"a path the commit lacks", tree, ".trivyignore.yaml", false},
		{"the file, at another commit", other, ".shipyard/pins.Dockerfile", false},
		{"a folder taken out", tree.WithoutDirectory("containers"), "containers", false},
		{"a file taken out", tree.WithoutFile(".shipyard/pins.Dockerfile"), ".shipyard/pins.Dockerfile", false},
		{"a file beside what was taken out", tree.WithoutDirectory("containers"), ".shipyard/pins.Dockerfile", true},
		{"a folder taken out, seen from its parent", tree.WithoutDirectory(".shipyard").Directory("."), ".shipyard/pins.Dockerfile", false},
		{"a folder put back", tree.WithoutDirectory("containers").WithDirectory("containers", tree.Directory("containers")), "containers", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.dir.Exists(ctx, tc.path)
			if err != nil || got != tc.want {
				t.Errorf("exists %s = %v, %v; want %v", tc.path, got, err, tc.want)
			}
		})
	}
}
