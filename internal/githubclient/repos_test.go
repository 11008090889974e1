package githubclient

import (
	"context"
	"testing"
)

func TestRepoPermissions(t *testing.T) {
	for _, push := range []bool{true, false} {
		f := setup(t, push)
		p, found, err := f.c.RepoPermissions(context.Background(), "octo", "demo")
		if err != nil || !found || !p.Known || !p.Pull || p.Push != push || p.Admin {
			t.Errorf("push=%v: RepoPermissions = %+v, %v, %v", push, p, found, err)
		}
	}
	f := setup(t, true)
	if _, found, err := f.c.RepoPermissions(context.Background(), "octo", "missing"); found || err != nil {
		t.Errorf("a missing repository: found %v, err %v", found, err)
	}
}
