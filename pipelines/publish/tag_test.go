package publish_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

func TestTagImagesNeverMovesAVersion(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	first := v.pushed(t)
	if _, err := publish.TagImages(ctx, v.target, first, []string{"0.11.0", "sha-" + sha}, nil, nil); err != nil {
		t.Fatal(err)
	}
	before := v.tags(t)

	// A second build of filer (another digest); taskmaster stays the same.
	w.Rebuild("filer")
	second := newEnv(t, w).pushed(t)
	if second[0].Digest == first[0].Digest || second[1].Digest != first[1].Digest {
		t.Fatalf("setup: %+v then %+v", first, second)
	}
	writes := len(w.Registry.Writes())

	tests := []struct {
		name    string
		tags    []string
		wantErr []string
	}{
		{name: "version", tags: []string{"0.11.0"}, wantErr: []string{"0.11.0", first[0].Digest, second[0].Digest, "release a higher version"}},
		{name: "commit", tags: []string{"sha-" + sha, "dev"}, wantErr: []string{"sha-" + sha, "publish a new commit"}},
		{name: "unknown tag class", tags: []string{"stable"}, wantErr: []string{`"stable" is not one Shipyard publishes`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := publish.TagImages(ctx, v.target, second, tt.tags, nil, nil)
			for _, want := range tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("err = %v, want %q", err, want)
				}
			}
			if !strings.Contains(err.Error(), "nothing was tagged") {
				t.Errorf("err = %v, want it to say nothing was tagged", err)
			}
			// All or nothing: taskmaster, whose plan alone was fine, got no dev either.
			if after := v.tags(t); !reflect.DeepEqual(after, before) {
				t.Errorf("tags changed: %v, before %v", after, before)
			}
			if extra := w.Registry.Writes()[writes:]; len(extra) != 0 {
				t.Errorf("a refused plan wrote %v", extra)
			}
		})
	}

	// The same digests again: kept, nothing written.
	reports, err := publish.TagImages(ctx, v.target, first, []string{"0.11.0", "sha-" + sha}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reports {
		if len(r.Written) != 0 || len(r.Kept) != 2 {
			t.Errorf("re-tagging the same digest: %+v", r)
		}
	}
	if extra := w.Registry.Writes()[writes:]; len(extra) != 0 {
		t.Errorf("re-tagging wrote %v", extra)
	}

	// latest needs the caller's recheck; a release gives one, and it moves last.
	if _, err := publish.TagImages(ctx, v.target, first, []string{"latest"}, nil, nil); err == nil || !strings.Contains(err.Error(), "stillLatest") {
		t.Errorf("latest without a recheck: %v", err)
	}
	asked := 0
	reports, err = publish.TagImages(ctx, v.target, first, []string{"0.11.0", "latest"}, func(context.Context) (bool, error) { asked++; return true, nil }, nil)
	if err != nil || asked != 2 || reports[0].Written[0].Tag != "latest" {
		t.Fatalf("latest: %+v, %v (asked %d)", reports, err, asked)
	}
}

func TestDevTags(t *testing.T) {
	tests := []struct {
		sha     string
		want    []string
		wantErr bool
	}{
		{sha: sha, want: []string{"sha-" + sha, "dev"}},
		{sha: sha[:7], wantErr: true},
		{sha: strings.ToUpper(sha), wantErr: true},
		{sha: "", wantErr: true},
	}
	for _, tt := range tests {
		got, err := publish.DevTags(tt.sha)
		if (err != nil) != tt.wantErr || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("DevTags(%q) = %v, %v", tt.sha, got, err)
		}
	}
}
