package publish_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

func TestPushByDigestCreatesNoTag(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	// An earlier image holds dev; the push must neither move it nor add a tag.
	old := w.Registry.Push(t, v.repo("filer"), w.Image(t, "old"))
	w.Registry.Tag(t, v.repo("filer"), "dev", old)
	before := v.tags(t)

	pushed, err := publish.PushByDigest(ctx, "push-by-digest", v.images, v.target)
	if err != nil {
		t.Fatal(err)
	}
	want := []publish.Pushed{
		{Name: "filer", Repository: v.repo("filer"), Digest: w.Digest(t, "filer")},
		{Name: "taskmaster", Repository: v.repo("taskmaster"), Digest: w.Digest(t, "taskmaster")},
	}
	if !reflect.DeepEqual(pushed, want) {
		t.Fatalf("pushed %+v, want %+v", pushed, want)
	}
	if after := v.tags(t); !reflect.DeepEqual(after, before) {
		t.Errorf("tags changed: %v, before %v", after, before)
	}
	// The images reach the registry command as tarballs mounted into its container, never
	// exported through the module.
	if exports := v.e.Graph().Exports(); len(exports) != 0 {
		t.Errorf("exports %+v, want none", exports)
	}
	mounted := 0
	for _, x := range v.e.Graph().Execs() {
		if len(x.Args) > 1 && x.Args[0] == "registry" && x.Args[1] == "push" {
			for _, m := range x.Mounts {
				if m.Kind == "withMountedFile" && strings.Contains(m.Source, "asTarball") {
					mounted++
				}
			}
		}
	}
	if mounted != 2 {
		t.Errorf("%d image tarballs mounted into registry push, want one per image", mounted)
	}
	v.noSecrets(t, jsonOf(t, pushed))

	// Again, from a new job: nothing is written.
	writes := len(w.Registry.Writes())
	if _, err := publish.PushByDigest(ctx, "push-by-digest", newEnv(t, w).images, v.target); err != nil {
		t.Fatal(err)
	}
	if extra := w.Registry.Writes()[writes:]; len(extra) != 0 {
		t.Errorf("a second push wrote %v", extra)
	}
}

func TestPushByDigestFailsMidPushThenARerunFinishes(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	w.Registry.FailNext(1, http.StatusInsufficientStorage, func(r *http.Request) bool {
		return r.Method == http.MethodPut && strings.Contains(r.URL.Path, "tesk-core-filer/manifests/")
	})
	_, err := publish.PushByDigest(ctx, "push-by-digest", v.images, v.target)
	if err == nil || !strings.Contains(err.Error(), "push-by-digest: filer: ") || strings.Contains(err.Error(), "taskmaster: ") {
		t.Fatalf("err = %v, want filer's failure only", err)
	}
	v.noSecrets(t, err.Error())
	for n, tags := range v.tags(t) {
		if len(tags) != 0 {
			t.Errorf("%s tagged: %v", n, tags)
		}
	}
	writes := len(w.Registry.Writes())
	pushed, err := publish.PushByDigest(ctx, "push-by-digest", newEnv(t, w).images, v.target)
	if err != nil {
		t.Fatalf("re-run: %v", err)
	}
	if pushed[0].Digest != w.Digest(t, "filer") {
		t.Errorf("re-run pushed %+v", pushed)
	}
	for _, wr := range w.Registry.Writes()[writes:] {
		if strings.Contains(wr, "taskmaster") {
			t.Errorf("the re-run wrote taskmaster again: %s", wr)
		}
	}
}

func TestPushByDigestRefuses(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	v.e.OnExport(engine.ExportRule{Kind: "Container", ChainContains: "containers/taskmaster.Dockerfile", Write: func(string) error {
		return errors.New("no space left on device")
	}})
	tests := []struct {
		name    string
		mutate  func(*publish.Target)
		wantErr string
	}{
		{name: "no registry", mutate: func(t *publish.Target) { t.Registry = "" }, wantErr: "no registry"},
		{name: "org with a slash", mutate: func(t *publish.Target) { t.Org = "a/b" }, wantErr: "give one name"},
		{name: "password without user", mutate: func(t *publish.Target) { t.Username = "" }, wantErr: "pass the registry user name"},
		{name: "no registry tool", mutate: func(t *publish.Target) { t.RegistryTool = nil }, wantErr: "no registry tool"},
		{name: "the image cannot be read", mutate: func(*publish.Target) {}, wantErr: "push-by-digest: taskmaster: publishtest: the image mounted at /run/shipyard/images/taskmaster.oci.tar: no space left on device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := v.target
			tt.mutate(&target)
			_, err := publish.PushByDigest(ctx, "push-by-digest", v.images, target)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			requireAloneNamed(t, err, publish.StepPush)
		})
	}
}
