package githubclient

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"dagger/shipyard/internal/github"
)

// gitBlobSHA is Git's object id of a file's content, as GitHub reports it in compares.
func gitBlobSHA(content string) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00%s", len(content), content)
	return hex.EncodeToString(h.Sum(nil))
}

func TestPushACommitAndMoveBranches(t *testing.T) {
	ctx := context.Background()
	f := setup(t, true)
	main := f.repo.CommitOnBranch("main", "init", map[string]string{"keep.txt": "keep\n", "a.yaml": "v: 1\n", "gone.txt": "x\n"})

	head, found, err := f.c.BranchHead(ctx, "octo", "demo", "main")
	if err != nil || !found || head != main {
		t.Fatalf("BranchHead(main) = %q, %v, %v", head, found, err)
	}
	if _, found, err := f.c.BranchHead(ctx, "octo", "demo", "automation/x"); found || err != nil {
		t.Fatalf("BranchHead of a missing branch = %v, %v", found, err)
	}
	base, err := f.c.CommitTree(ctx, "octo", "demo", main)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := f.c.CreateTree(ctx, "octo", "demo", base, []github.TreeChange{
		{Path: "a.yaml", Content: []byte("v: 2\n")},
		{Path: "gone.txt", Delete: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	commit, err := f.c.CreateCommit(ctx, "octo", "demo", "chore: v2", tree, []string{main})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := f.c.Commit(ctx, "octo", "demo", commit); err != nil || got.SHA != commit || got.Message != "chore: v2" || got.Tree != tree || len(got.Parents) != 1 || got.Parents[0] != main {
		t.Errorf("Commit(%s) = %+v, %v", commit, got, err)
	}
	if err := f.c.CreateBranch(ctx, "octo", "demo", "automation/x", commit); err != nil {
		t.Fatal(err)
	}
	if got := f.repo.Files("automation/x"); len(got) != 2 || got["a.yaml"] != "v: 2\n" || got["keep.txt"] != "keep\n" {
		t.Errorf("files at the branch: %v", got)
	}
	if err := f.c.CreateBranch(ctx, "octo", "demo", "automation/x", commit); !errors.Is(err, github.ErrAlreadyExists) {
		t.Errorf("creating it again: %v, want ErrAlreadyExists", err)
	}

	cmp, found, err := f.c.CompareFiles(ctx, "octo", "demo", "main", "automation/x")
	if err != nil || !found {
		t.Fatalf("CompareFiles = %v, %v", found, err)
	}
	want := fmt.Sprintf("[{a.yaml modified %s} {gone.txt removed %s}]", gitBlobSHA("v: 2\n"), gitBlobSHA("x\n"))
	if cmp.AheadBy != 1 || cmp.BehindBy != 0 || fmt.Sprint(cmp.Files) != want {
		t.Errorf("comparison %+v, want ahead 1, behind 0, files %s", cmp, want)
	}
	if _, found, err := f.c.CompareFiles(ctx, "octo", "demo", "main", "no/such-branch"); found || err != nil {
		t.Errorf("compare with a missing branch = %v, %v; want not found", found, err)
	}

	// main moves on; the automation branch is rebuilt on it, which needs force.
	main2 := f.repo.CommitOnBranch("main", "more", map[string]string{"b.txt": "b\n"})
	tree2, err := f.c.CreateTree(ctx, "octo", "demo", base, nil)
	if err != nil {
		t.Fatal(err)
	}
	rebuilt, err := f.c.CreateCommit(ctx, "octo", "demo", "chore: v2 again", tree2, []string{main2})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		branch  string
		sha     string
		force   bool
		wantErr error
	}{
		{"non-fast-forward refused", "automation/x", rebuilt, false, github.ErrNotFastForward},
		{"missing branch", "automation/none", rebuilt, true, github.ErrNotFound},
		{"forced on the automation branch", "automation/x", rebuilt, true, nil},
		{"fast forward of main", "main", f.repo.AddCommit("ff", []string{main2}, map[string]string{"c": "c\n"}), false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := f.c.UpdateBranch(ctx, "octo", "demo", tt.branch, tt.sha, tt.force)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("UpdateBranch = %v, want %v", err, tt.wantErr)
			}
			if err == nil && f.repo.Branch(tt.branch) != tt.sha {
				t.Errorf("%s at %s, want %s", tt.branch, f.repo.Branch(tt.branch), tt.sha)
			}
		})
	}
}

func TestCreateTreeRefusesBinaryAndAbsolutePaths(t *testing.T) {
	f := setup(t, true)
	for _, ch := range []github.TreeChange{{Path: "bin", Content: []byte{0xff, 0xfe}}, {Path: "/abs", Content: []byte("x")}} {
		if _, err := f.c.CreateTree(context.Background(), "octo", "demo", "", []github.TreeChange{ch}); err == nil ||
			!strings.Contains(err.Error(), ch.Path) {
			t.Errorf("CreateTree(%q) = %v, want an error naming the path", ch.Path, err)
		}
	}
	if n := len(f.sim.Requests()); n != 0 {
		t.Errorf("sent %d requests for changes refused locally", n)
	}
}

// A branch name git refuses never reaches GitHub: under refs/heads/ a name like
// ../tags/v1 would address the tag v1 with the write token (go-github resolves the path's
// dot segments before sending). Each call that makes a ref of a branch refuses it, naming
// the branch and the rule, before any request.
func TestBranchNamesGitRefusesAreNeverSent(t *testing.T) {
	ctx := context.Background()
	const sha = "0123456789abcdef0123456789abcdef01234567"
	ops := map[string]func(c *Client, branch string) error{
		"BranchHead": func(c *Client, branch string) error {
			_, _, err := c.BranchHead(ctx, "octo", "demo", branch)
			return err
		},
		"CreateBranch": func(c *Client, branch string) error { return c.CreateBranch(ctx, "octo", "demo", branch, sha) },
		"UpdateBranch": func(c *Client, branch string) error { return c.UpdateBranch(ctx, "octo", "demo", branch, sha, true) },
	}
	for _, branch := range []string{"../tags/v1", "heads/../../tags/v1", "-main", "/main", "main/", "a//b", "main.lock", "main@{1}", "ma\x01in", ""} {
		for name, op := range ops {
			t.Run(name+" "+branch, func(t *testing.T) {
				c, srv := cannedClient(t, 200, `{"ref":"refs/tags/v1","object":{"type":"commit","sha":"`+sha+`"}}`)
				err := op(c, branch)
				if !errors.Is(err, github.ErrRefName) || !strings.Contains(err.Error(), fmt.Sprintf("branch %q", branch)) {
					t.Errorf("%s(%q) = %v, want ErrRefName naming the branch", name, branch, err)
				}
				if !errors.Is(err, github.ErrRefused) || github.OutcomeUnknown(err) {
					t.Errorf("%s(%q) = %v, want ErrRefused: nothing was sent, so nothing was written", name, branch, err)
				}
				if seen := srv.requests(); len(seen) != 0 {
					t.Errorf("%s(%q) sent %s %s", name, branch, seen[0].method, seen[0].path)
				}
			})
		}
	}
}
