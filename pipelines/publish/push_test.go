package publish_test

import (
	"context"
	"errors"
	"net/http"
	"os"
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

	workdir := t.TempDir()
	pushed, err := publish.PushByDigest(ctx, v.images, v.target, workdir)
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
	if left, _ := os.ReadDir(workdir); len(left) != 0 {
		t.Errorf("tarballs left behind: %v", left)
	}
	if exports := v.e.Graph().Exports(); len(exports) != 2 {
		t.Errorf("exports %+v, want one per image", exports)
	}
	v.noSecrets(t, jsonOf(t, pushed))

	// Again, from a new job: nothing is written.
	writes := len(w.Registry.Writes())
	if _, err := publish.PushByDigest(ctx, newEnv(t, w).images, v.target, t.TempDir()); err != nil {
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
	_, err := publish.PushByDigest(ctx, v.images, v.target, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "push-by-digest filer") || strings.Contains(err.Error(), "push-by-digest taskmaster") {
		t.Fatalf("err = %v, want filer's failure only", err)
	}
	v.noSecrets(t, err.Error())
	for n, tags := range v.tags(t) {
		if len(tags) != 0 {
			t.Errorf("%s tagged: %v", n, tags)
		}
	}
	writes := len(w.Registry.Writes())
	pushed, err := publish.PushByDigest(ctx, newEnv(t, w).images, v.target, t.TempDir())
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
		workdir string
		wantErr string
	}{
		{name: "no registry", mutate: func(t *publish.Target) { t.Registry = "" }, workdir: t.TempDir(), wantErr: "no registry"},
		{name: "org with a slash", mutate: func(t *publish.Target) { t.Org = "a/b" }, workdir: t.TempDir(), wantErr: "give one name"},
		{name: "password without user", mutate: func(t *publish.Target) { t.Username = "" }, workdir: t.TempDir(), wantErr: "--registry-username"},
		{name: "no workdir", mutate: func(*publish.Target) {}, wantErr: "no work directory"},
		{name: "export fails", mutate: func(*publish.Target) {}, workdir: t.TempDir(), wantErr: "push-by-digest taskmaster: exporting the image as an OCI tarball"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := v.target
			tt.mutate(&target)
			_, err := publish.PushByDigest(ctx, v.images, target, tt.workdir)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
