package main

import (
	"context"
	"strings"
	"testing"

	"dagger/shipyard/pipelines/publish/publishtest"
)

// Every function that writes to the registry refuses a target it cannot write to before
// anything is built or pushed, in its users' words (m.target checks it, once): no registry,
// an organisation that is no one name, a password without a user name.
func TestWritingFunctionsRefuseABadTargetFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	calls := map[string]func(m *Shipyard) error{
		"push-by-digest": func(m *Shipyard) error { _, err := m.PushByDigest(ctx, "", ""); return err },
		"push-platform-by-digest": func(m *Shipyard) error {
			_, err := m.PushPlatformByDigest(ctx, "linux/amd64", "", "")
			return err
		},
		"tag-images": func(m *Shipyard) error {
			_, err := m.TagImages(ctx, `{"filer": "`+repoOf(w, "filer")+`@sha256:`+strings.Repeat("1", 64)+`"}`, []string{"sha-" + devSHA})
			return err
		},
	}
	bad := []struct {
		name string
		set  func(m *Shipyard)
		want string
	}{
		{"no registry", func(m *Shipyard) { m.Registry = " " }, "no registry given: give --registry"},
		{"an organisation of two names", func(m *Shipyard) { m.Org = "elixircloud/dev" }, `--org "elixircloud/dev": give one name`},
		{"a password without a user name", func(m *Shipyard) { m.RegistryUsername = "" }, "without a user name: pass --registry-username"},
	}
	for fn, call := range calls {
		for _, b := range bad {
			m, e := publishModuleOf(t, w, true, checkout(devSHA)) // the platform push names its commit
			b.set(m)
			err := call(m)
			if err == nil || !strings.HasPrefix(err.Error(), fn+": ") || !strings.Contains(err.Error(), b.want) {
				t.Errorf("%s with %s: %v, want %q", fn, b.name, err, b.want)
			}
			for _, x := range e.Graph().Execs() {
				if x.Args[0] != "registry" && !strings.Contains(strings.Join(x.Args, " "), "go build") {
					t.Errorf("%s with %s ran %v before refusing", fn, b.name, x.Args)
				}
			}
		}
	}
	if n := len(w.Registry.Writes()); n != 0 {
		t.Errorf("%d registry write(s) after every refusal", n)
	}
}
