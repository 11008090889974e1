package publish_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"dagger/shipyard/pipelines/ci/artifact"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

func TestTagImagesNeverMovesAVersion(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	first := v.pushed(t)
	if _, err := publish.TagImages(ctx, "tag-images", v.target, first, []string{"0.11.0", "sha-" + sha}, nil); err != nil {
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
		{name: "unknown tag class", tags: []string{"stable"}, wantErr: []string{`"stable" is not one this system publishes (X.Y.Z, X.Y.Z{a,b,rc}N, sha-<commit>, latest, dev)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := publish.TagImages(ctx, "tag-images", v.target, second, tt.tags, nil)
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
	reports, err := publish.TagImages(ctx, "tag-images", v.target, first, []string{"0.11.0", "sha-" + sha}, nil)
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

	// latest is the release's (MoveLatest), with its recheck: never a plain tag.
	if _, err := publish.TagImages(ctx, "tag-images", v.target, first, []string{"latest"}, nil); err == nil || !strings.Contains(err.Error(), "stillLatest") {
		t.Errorf("latest without a recheck: %v", err)
	}
	if _, err := publish.MoveLatest(ctx, v.target, first, nil); err == nil || !strings.Contains(err.Error(), "stillLatest") {
		t.Errorf("MoveLatest without a recheck: %v", err)
	}
	// GitHub's half says a higher release is out: nothing is asked of the registry.
	writes = len(w.Registry.Writes())
	latest, err := publish.MoveLatest(ctx, v.target, first, func(context.Context) (bool, []string, error) { return false, nil, nil })
	if err != nil || latest.Skipped == "" || len(w.Registry.Writes()) != writes {
		t.Fatalf("latest after GitHub's no: %+v, %v", latest, err)
	}
	// The registry's half: a higher final version's images are out (its GitHub release not
	// yet), so latest stays.
	asked := 0
	latest, err = publish.MoveLatest(ctx, v.target, first, func(context.Context) (bool, []string, error) { asked++; return true, []string{"0.11.0"}, nil })
	if err != nil || asked != 1 || latest.Skipped == "" || len(latest.Written) != 0 {
		t.Fatalf("latest with a higher version in the registry: %+v, %v (asked %d)", latest, err, asked)
	}
	latest, err = publish.MoveLatest(ctx, v.target, first, func(context.Context) (bool, []string, error) { return true, []string{"0.12.0"}, nil })
	if err != nil || len(latest.Written) != len(first) || latest.Skipped != "" {
		t.Fatalf("latest: %+v, %v", latest, err)
	}
	for _, n := range imageNames {
		if tags := v.w.Registry.Tags(t, v.repo(n)); tags["latest"] != tags["0.11.0"] {
			t.Errorf("%s: latest on %s, want the release's %s", n, tags["latest"], tags["0.11.0"])
		}
	}
}

func TestBranchTags(t *testing.T) {
	acme := publish.TagPolicy{Latest: "stable", BranchTag: "edge", Branch: "main", CommitPrefix: "git-"}
	tests := []struct {
		policy  publish.TagPolicy
		sha     string
		want    []string
		wantErr string
	}{
		{policy: artifact.Tags(), sha: sha, want: []string{"sha-" + sha, "dev"}},
		{policy: acme, sha: sha, want: []string{"git-" + sha, "edge"}},
		{policy: artifact.Tags(), sha: sha[:7], wantErr: "give the full commit SHA"},
		{policy: artifact.Tags(), sha: strings.ToUpper(sha), wantErr: "give the full commit SHA"},
		{policy: artifact.Tags(), sha: "", wantErr: "give the full commit SHA"},
		{policy: publish.TagPolicy{Latest: "latest"}, sha: sha, wantErr: "names no branch tag"},
	}
	for _, tt := range tests {
		got, err := publish.BranchTags(tt.policy, tt.sha)
		if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) || tt.wantErr == "" && err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("BranchTags(%+v, %q) = %v, %v; want %v, %q", tt.policy, tt.sha, got, err, tt.want, tt.wantErr)
		}
	}
}
