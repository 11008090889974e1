package githubclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/github"
)

// commitTree writes files on main's head with WriteTree, commits and moves main, and
// returns the tree.
func commitTree(t *testing.T, f *fixture, files []github.TreeFile, lim github.TreeBatches) string {
	t.Helper()
	ctx := context.Background()
	head, _, err := f.c.BranchHead(ctx, "octo", "demo", "main")
	if err != nil {
		t.Fatal(err)
	}
	base, err := f.c.CommitTree(ctx, "octo", "demo", head)
	if err != nil {
		t.Fatal(err)
	}
	current, complete, err := f.c.Tree(ctx, "octo", "demo", base)
	if err != nil || !complete {
		t.Fatalf("Tree = %v, %v", complete, err)
	}
	tree, err := f.c.WriteTree(ctx, "octo", "demo", base, current, files, lim)
	if err != nil {
		t.Fatal(err)
	}
	if tree == base {
		return tree
	}
	commit, err := f.c.CreateCommit(ctx, "octo", "demo", "update", tree, []string{head})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.c.UpdateBranch(ctx, "octo", "demo", "main", commit, false); err != nil {
		t.Fatal(err)
	}
	return tree
}

// TestWriteTreeKeepsModesAndBytes: executables, symlinks and bytes that are not UTF-8
// arrive as they are; files main has and the tree lacks are gone.
func TestWriteTreeKeepsModesAndBytes(t *testing.T) {
	f := setup(t, true)
	f.repo.CommitOnBranch("main", "init", map[string]string{"stale.py": "x = 1\n", "README.md": "old\n"})
	binary := []byte{0x89, 'P', 'N', 'G', 0xff, 0x00, 0xfe}
	files := []github.TreeFile{
		{Path: "README.md", Content: []byte("# models\n")},
		{Path: "scripts/gen.sh", Mode: github.ModeExecutable, Content: []byte("#!/bin/sh\necho hi\n")},
		{Path: "docs/index.md", Mode: github.ModeSymlink, Content: []byte("../README.md")},
		{Path: "docs/logo.png", Content: binary},
	}
	commitTree(t, f, files, github.TreeBatches{})
	got, modes := f.repo.Files("main"), f.repo.Modes("main")
	if len(got) != 4 || got["docs/logo.png"] != string(binary) || got["docs/index.md"] != "../README.md" || got["README.md"] != "# models\n" {
		t.Errorf("files %q", got)
	}
	if want := map[string]string{"scripts/gen.sh": github.ModeExecutable, "docs/index.md": github.ModeSymlink}; fmt.Sprint(modes) != fmt.Sprint(want) {
		t.Errorf("modes %v, want %v", modes, want)
	}
	if n := f.sim.Count("POST", "/repos/octo/demo/git/blobs"); n != 1 {
		t.Errorf("%d blobs written, want 1 (the file that is not UTF-8)", n)
	}

	// Only the executable bit changes: one tree request with one entry, and no blob.
	f.sim.ResetLog()
	files[1].Mode = github.ModeFile
	commitTree(t, f, files, github.TreeBatches{})
	if m := f.repo.Modes("main"); m["scripts/gen.sh"] != "" || m["docs/index.md"] != github.ModeSymlink {
		t.Errorf("modes after clearing the executable bit: %v", m)
	}
	if n, b := f.sim.Count("POST", "/repos/octo/demo/git/trees"), f.sim.Count("POST", "/repos/octo/demo/git/blobs"); n != 1 || b != 0 {
		t.Errorf("%d tree and %d blob requests for a mode change, want 1 and 0", n, b)
	}

	// Nothing changes: the base comes back and nothing is written.
	f.sim.ResetLog()
	before := f.repo.Branch("main")
	commitTree(t, f, files, github.TreeBatches{})
	if len(f.sim.Writes()) != 0 || f.repo.Branch("main") != before {
		t.Errorf("an unchanged tree wrote %v", f.sim.Writes())
	}
}

// TestWriteTreeInBoundedBatches: a tree larger than one request goes in several, each
// within its bounds and on top of the one before; a file larger than a request goes as a
// blob; the result is the same tree one request would give.
func TestWriteTreeInBoundedBatches(t *testing.T) {
	f := setup(t, true)
	f.repo.CommitOnBranch("main", "init", map[string]string{"stale.py": "x = 1\n"})
	var files []github.TreeFile
	for i := range 25 {
		files = append(files, github.TreeFile{Path: fmt.Sprintf("pkg/v%02d.py", i), Content: []byte(strings.Repeat("x", 300) + "\n")})
	}
	files = append(files, github.TreeFile{Path: "big.json", Content: []byte(strings.Repeat("y", 5000))})
	lim := github.TreeBatches{MaxBytes: 1000, MaxEntries: 5, Blobs: 2}
	tree := commitTree(t, f, files, lim)
	if n := f.sim.Count("POST", "/repos/octo/demo/git/trees"); n < 8 {
		t.Errorf("%d tree requests; want 25 files of 301 bytes in batches of at most 1000 bytes (8 or more)", n)
	}
	if n := f.sim.Count("POST", "/repos/octo/demo/git/blobs"); n != 1 {
		t.Errorf("%d blobs, want 1 (the file larger than a batch)", n)
	}
	got := f.repo.Files("main")
	if len(got) != 26 || got["big.json"] != strings.Repeat("y", 5000) || got["stale.py"] != "" {
		t.Errorf("%d files at main (stale.py %q)", len(got), got["stale.py"])
	}

	// The same files in one request give the same tree.
	g := setup(t, true)
	g.repo.CommitOnBranch("main", "init", map[string]string{"stale.py": "x = 1\n"})
	if one := commitTree(t, g, files, github.TreeBatches{}); one != tree {
		t.Errorf("batched tree %s, one request %s", tree, one)
	}
}

// TestWriteTreeRepeatsWritesOfUnknownOutcome: blob and tree writes are named by their
// content, so a 502 (which may or may not have taken effect) is simply repeated; a
// refusal is not.
func TestWriteTreeRepeatsWritesOfUnknownOutcome(t *testing.T) {
	f := setup(t, true)
	f.repo.CommitOnBranch("main", "init", map[string]string{"a.txt": "a\n"})
	f.sim.InjectFault("POST", "/repos/octo/demo/git/blobs", githubsim.Fault{Kind: githubsim.FaultStatus, Status: 502, Times: 1, AfterEffect: true})
	f.sim.InjectFault("POST", "/repos/octo/demo/git/trees", githubsim.BadGateway(2))
	files := []github.TreeFile{{Path: "a.txt", Content: []byte("b\n")}, {Path: "b.bin", Content: []byte{0xff, 0xfe}}}
	commitTree(t, f, files, github.TreeBatches{})
	if got := f.repo.Files("main"); got["a.txt"] != "b\n" || got["b.bin"] != "\xff\xfe" {
		t.Errorf("files %q", got)
	}
	if s := f.c.Stats(); s.Retries < 3 {
		t.Errorf("stats %+v: want the blob and the tree writes repeated", s)
	}

	g := setup(t, false) // no push access: 403, a definite refusal
	g.repo.CommitOnBranch("main", "init", map[string]string{"a.txt": "a\n"})
	_, err := g.c.WriteTree(context.Background(), "octo", "demo", "", nil, files, github.TreeBatches{})
	if err == nil || !strings.Contains(err.Error(), "403") || g.sim.Count("POST", "/repos/octo/demo/git/blobs") != 1 {
		t.Errorf("err = %v after %d blob requests; want one refused request", err, g.sim.Count("POST", "/repos/octo/demo/git/blobs"))
	}
}

func TestWriteTreeRefusesBadFiles(t *testing.T) {
	f := setup(t, true)
	tests := []struct {
		files []github.TreeFile
		want  string
	}{
		{[]github.TreeFile{{Path: "/abs", Content: []byte("x")}}, "must be relative"},
		{[]github.TreeFile{{Path: "a", Content: []byte("x")}, {Path: "a", Content: []byte("y")}}, "given twice"},
		{[]github.TreeFile{{Path: "sub", Mode: "160000", Content: []byte("x")}}, `mode "160000"`},
	}
	for _, tt := range tests {
		if _, err := f.c.WriteTree(context.Background(), "octo", "demo", "", nil, tt.files, github.TreeBatches{}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("err = %v, want %q", err, tt.want)
		}
	}
	if len(f.sim.Writes()) != 0 {
		t.Errorf("writes %v", f.sim.Writes())
	}
}

// TestJSONLenBoundsTheEncoding: the batch bound counts at least what the request carries.
func TestJSONLenBoundsTheEncoding(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash\nnew\ttab\r", "\x00\x01\x1f", "<a href=\"x\">&amp;</a>", "ünïcødé \u2028"} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, min := jsonLen([]byte(s)), len(b)-2; got < min {
			t.Errorf("jsonLen(%q) = %d, below its encoding's %d", s, got, min)
		}
	}
}

// BenchmarkWriteTreeKubernetesSized writes a Kubernetes-sized generated repository (3,000
// files, 54 MB, a few executables, symlinks and binary files) to an empty model
// repository on the GitHub simulator, then an update that changes 1% of its files.
func BenchmarkWriteTreeKubernetesSized(b *testing.B) {
	var files []github.TreeFile
	total := 0
	for i := range 3000 {
		body := []byte(fmt.Sprintf("# Generated by cloudcoil-model-codegen\nclass Model%04d:\n", i) + strings.Repeat("    field: str = \"value\"  # a generated field\n", 400))
		f := github.TreeFile{Path: fmt.Sprintf("cloudcoil/models/kubernetes/v%d/m%04d.py", i%40, i), Content: body}
		switch i % 500 {
		case 1:
			f.Mode = github.ModeExecutable
		case 2:
			f = github.TreeFile{Path: fmt.Sprintf("docs/link%04d.py", i), Mode: github.ModeSymlink, Content: []byte("../cloudcoil/models/kubernetes/v1/m0001.py")}
		case 3:
			f.Content = append([]byte{0xff, 0xfe}, body...)
		}
		total += len(f.Content)
		files = append(files, f)
	}
	for b.Loop() {
		f := setup(b, true)
		f.repo.CommitOnBranch("main", "init", map[string]string{"README.md": "old\n"})
		ctx := context.Background()
		head, _, _ := f.c.BranchHead(ctx, "octo", "demo", "main")
		base, err := f.c.CommitTree(ctx, "octo", "demo", head)
		if err != nil {
			b.Fatal(err)
		}
		tree, err := f.c.WriteTree(ctx, "octo", "demo", base, []github.TreeEntry{{Path: "README.md", Mode: github.ModeFile, Type: "blob", SHA: github.BlobSHA([]byte("old\n"))}}, files, github.DefaultTreeBatches())
		if err != nil {
			b.Fatal(err)
		}
		current, complete, err := f.c.Tree(ctx, "octo", "demo", tree)
		if err != nil || !complete {
			b.Fatal(complete, err)
		}
		changed := append([]github.TreeFile(nil), files...)
		for i := 0; i < len(changed); i += 100 {
			changed[i].Content = append([]byte("# regenerated\n"), changed[i].Content...)
		}
		if _, err := f.c.WriteTree(ctx, "octo", "demo", tree, current, changed, github.DefaultTreeBatches()); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(total)/1e6, "MB")
		b.ReportMetric(float64(len(files)), "files")
		b.ReportMetric(float64(f.sim.Count("POST", "/repos/octo/demo/git/trees")), "tree-requests")
		b.ReportMetric(float64(f.sim.Count("POST", "/repos/octo/demo/git/blobs")), "blob-requests")
	}
}

// TestWriteTreeKeepsTheBaseModeOfAFileWithoutOne: a caller that cannot read modes leaves
// an executable executable, also when its content changes.
func TestWriteTreeKeepsTheBaseModeOfAFileWithoutOne(t *testing.T) {
	f := setup(t, true)
	f.repo.CommitOnBranch("main", "init", map[string]string{"x": "x\n"})
	commitTree(t, f, []github.TreeFile{{Path: "run.sh", Mode: github.ModeExecutable, Content: []byte("v1\n")}, {Path: "a.txt", Content: []byte("a\n")}}, github.TreeBatches{})
	commitTree(t, f, []github.TreeFile{{Path: "run.sh", Content: []byte("v2\n")}, {Path: "a.txt", Content: []byte("a\n")}, {Path: "new.txt", Content: []byte("n\n")}}, github.TreeBatches{})
	if m := f.repo.Modes("main"); len(m) != 1 || m["run.sh"] != github.ModeExecutable {
		t.Errorf("modes %v", m)
	}
	if got := f.repo.Files("main"); got["run.sh"] != "v2\n" || got["new.txt"] != "n\n" {
		t.Errorf("files %q", got)
	}
}
