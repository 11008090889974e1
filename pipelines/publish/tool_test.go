package publish_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// The tool is built from the repository's supplychain folder in the pinned Go image with
// module and build caches; the signing execs get the binary only, and their secrets as files.
func TestToolAndSigningGraph(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	pushed := v.pushed(t)
	if _, err := publish.Sign(ctx, v.sign, v.target, pushed); err != nil {
		t.Fatal(err)
	}
	g := v.e.Graph()

	builds := g.ExecsWith("go build")
	if len(builds) != 1 {
		t.Fatalf("go build ran %d times, want once for both images", len(builds))
	}
	b := builds[0]
	if b.Image != publish.DefaultGoImage || b.Env["CGO_ENABLED"] != "0" || !slices.Contains(b.Args, "./cmd/supplychain") {
		t.Errorf("build exec %+v", b)
	}
	var caches []string
	for _, m := range b.Mounts {
		if m.Kind == "withMountedCache" {
			caches = append(caches, m.Path)
		}
		if m.Path == "/src" && !strings.Contains(m.Source, "_test.go") {
			t.Errorf("the build source is not filtered of tests: %s", m.Source)
		}
	}
	if !slices.Contains(caches, "/go/pkg/mod") || !slices.Contains(caches, "/root/.cache/go-build") {
		t.Errorf("build caches %v", caches)
	}

	signs := g.ExecsWith("supplychain sign")
	if len(signs) != 2 {
		t.Fatalf("sign execs %d, want one per image", len(signs))
	}
	for _, x := range signs {
		if x.Image != publish.DefaultGoImage {
			t.Errorf("sign ran in %s", x.Image)
		}
		var names []string
		for _, s := range x.Secrets {
			if s.Env != "" || s.Path == "" {
				t.Errorf("secret %+v is not a file", s)
			}
			names = append(names, s.Name)
		}
		slices.Sort(names)
		if want := []string{publishtest.OIDCTokenSecret, publishtest.RegistryPasswordSecret}; !slices.Equal(names, want) {
			t.Errorf("sign secrets %v, want %v", names, want)
		}
		for _, m := range x.Mounts {
			if m.Kind == "withMountedCache" || m.Path == "/src" {
				t.Errorf("the sign exec still has the build's %s", m.Path)
			}
		}
	}
	v.noSecrets(t)
}

func TestSignAndAttestRefuse(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	pushed := v.pushed(t)
	noTool := v.sign
	noTool.Tool = nil
	tests := []struct {
		name    string
		run     func() error
		wantErr string
	}{
		{"sign without a token", func() error {
			in := v.sign
			in.OIDCToken = nil
			_, err := publish.Sign(ctx, in, v.target, pushed)
			return err
		}, "sign: no OIDC token"},
		{"attest without the tool", func() error {
			_, err := publish.Attest(ctx, noTool, v.target, pushed, v.images)
			return err
		}, "no supplychain tool"},
		{"attest an image not built here", func() error {
			_, err := publish.Attest(ctx, v.sign, v.target, []publish.Pushed{{Name: "api", Repository: v.repo("api"), Digest: pushed[0].Digest}}, v.images)
			return err
		}, "attest api: no image of that name"},
		{"sign a digest that is not pushed", func() error {
			_, err := publish.Sign(ctx, v.sign, v.target, []publish.Pushed{{Name: "filer", Repository: v.repo("filer"), Digest: digestA}})
			return err
		}, "sign filer"},
		{"sign the same image twice", func() error {
			_, err := publish.Sign(ctx, v.sign, v.target, []publish.Pushed{pushed[0], pushed[0]})
			return err
		}, "given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			v.noSecrets(t, err.Error())
		})
	}
	if _, entries := w.Sigstore.Counts(t); entries != 0 {
		t.Errorf("%d log entries after refusals", entries)
	}
}
