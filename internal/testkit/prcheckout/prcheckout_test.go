package prcheckout

import (
	"os/exec"
	"strings"
	"testing"
)

// The checkout has actions/checkout's shape for a pull request: detached at the merge
// commit, origin's main as a remote-tracking branch and no local branch, and the pull
// request's diff against origin/main is its own change, not main's later commit.
func TestNewIsShapedAsActionsCheckout(t *testing.T) {
	tree := t.TempDir()
	write(t, tree, map[string]string{"a.txt": "a\n", "b/c.txt": "c\n", ".git/HEAD": "not copied\n"})
	c := New(t, Options{Tree: tree, Change: map[string]string{"b/c.txt": "changed\n", "a.txt": ""}, MainLater: map[string]string{"later.txt": "l\n"}})
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", append([]string{"-C", c.Dir}, args...)...).Output()
		return strings.TrimSpace(string(out)), err
	}
	for _, tc := range []struct {
		args []string
		want string
		fail bool
	}{
		{args: []string{"rev-parse", "HEAD"}, want: c.Merge},
		{args: []string{"symbolic-ref", "-q", "HEAD"}, fail: true}, // detached
		{args: []string{"for-each-ref", "refs/heads"}, want: ""},   // no local branch
		{args: []string{"rev-parse", "--verify", "-q", "main"}, fail: true},
		{args: []string{"rev-parse", "origin/main"}, want: c.Base},
		{args: []string{"rev-parse", "refs/remotes/origin/main"}, want: c.Base},
		{args: []string{"rev-parse", "refs/remotes/origin/feature"}, want: c.Head},
		{args: []string{"rev-parse", "HEAD^1"}, want: c.Base},
		{args: []string{"merge-base", "HEAD", "origin/main"}, want: c.Base},
		{args: []string{"diff", "--name-only", "origin/main...HEAD"}, want: "a.txt\nb/c.txt"},
		{args: []string{"ls-files"}, want: "b/c.txt\nlater.txt"},
	} {
		got, err := git(tc.args...)
		if tc.fail != (err != nil) || !tc.fail && got != tc.want {
			t.Errorf("git %s = %q, %v; want %q (failing: %v)", strings.Join(tc.args, " "), got, err, tc.want, tc.fail)
		}
	}
}
