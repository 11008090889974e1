package publish_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"dagger/shipyard/pipelines/publish"
)

var digestA = "sha256:" + strings.Repeat("a", 64)
var digestB = "sha256:" + strings.Repeat("b", 64)

func TestParseRef(t *testing.T) {
	tests := []struct {
		ref     string
		want    publish.Pushed
		wantErr string
	}{
		{ref: "docker.io/elixircloud/tesk-core-filer@" + digestA, want: publish.Pushed{Name: "filer", Repository: "docker.io/elixircloud/tesk-core-filer", Digest: digestA}},
		{ref: "127.0.0.1:5000/org/other@" + digestA, want: publish.Pushed{Name: "other", Repository: "127.0.0.1:5000/org/other", Digest: digestA}},
		{ref: "docker.io/elixircloud/tesk-core-filer:dev", wantErr: "not by digest"},
		{ref: "elixircloud/tesk-core-filer@" + digestA, wantErr: "registry spelled out"},
		{ref: "docker.io/elixircloud/tesk-core-filer@sha256:abc", wantErr: "not sha256:<64"},
		{ref: "docker.io/elixircloud/tesk-core-filer:dev@" + digestA, wantErr: "no tag or digest"},
	}
	for _, tt := range tests {
		got, err := publish.ParseRef(tt.ref, "tesk-core-")
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseRef(%q) err = %v, want %q", tt.ref, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseRef(%q) = %+v, %v", tt.ref, got, err)
		}
		if got.Ref() != tt.ref {
			t.Errorf("Ref() = %s, want %s", got.Ref(), tt.ref)
		}
	}
}

// The handoff names each image by its full reference: ParseRefs reads it back without
// building anything, for the images named, and refuses what would act on another image.
func TestParseRefs(t *testing.T) {
	t.Parallel()
	target := publish.Target{Registry: "docker.io/", Org: "fork"}
	filer, taskmaster := "docker.io/fork/tesk-core-filer", "docker.io/fork/tesk-core-taskmaster"
	tests := []struct {
		name    string
		in      string
		want    []publish.Pushed
		wantErr string
	}{
		{name: "every image, in name order", in: `{"taskmaster": "` + taskmaster + "@" + digestB + `", "filer": "` + filer + "@" + digestA + `"}`, want: []publish.Pushed{
			{Name: "filer", Repository: filer, Digest: digestA},
			{Name: "taskmaster", Repository: taskmaster, Digest: digestB},
		}},
		{name: "one image", in: `{"filer": "` + filer + "@" + digestA + `"}`, want: []publish.Pushed{{Name: "filer", Repository: filer, Digest: digestA}}},
		{name: "none", in: `{}`, wantErr: "no image given"},
		{name: "not an object", in: `["` + filer + "@" + digestA + `"]`, wantErr: "want the JSON push-by-digest printed"},
		{name: "not JSON", in: `filer=sha256:1`, wantErr: "want the JSON push-by-digest printed"},
		{name: "a bare digest", in: `{"filer": "` + digestA + `"}`, wantErr: "is a bare digest; give the full reference"},
		{name: "a tag", in: `{"filer": "` + filer + `:dev"}`, wantErr: "not a reference by digest"},
		{name: "a short digest", in: `{"filer": "` + filer + `@sha256:1"}`, wantErr: "not sha256:"},
		{name: "another organisation", in: `{"filer": "docker.io/elixircloud/tesk-core-filer@` + digestA + `"}`, wantErr: "not in docker.io/fork, where this call publishes"},
		{name: "another registry", in: `{"filer": "ghcr.io/fork/tesk-core-filer@` + digestA + `"}`, wantErr: "not in docker.io/fork"},
		{name: "a nested repository", in: `{"filer": "docker.io/fork/x/tesk-core-filer@` + digestA + `"}`, wantErr: "not in docker.io/fork"},
		{name: "another image's repository", in: `{"filer": "` + taskmaster + "@" + digestA + `"}`, wantErr: "is not image filer's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := publish.ParseRefs(tt.in, target)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("= %+v, %v", got, err)
			}
			back, err := json.Marshal(publish.Refs(got))
			if err != nil {
				t.Fatal(err)
			}
			if again, err := publish.ParseRefs(string(back), target); err != nil || !reflect.DeepEqual(again, got) {
				t.Errorf("Refs round trip = %+v, %v", again, err)
			}
		})
	}
	if got := target.Repository(publish.Artifact{Name: "filer", Repository: "tesk-core-filer"}); got != filer {
		t.Errorf("Repository = %s", got)
	}
}

func FuzzParseRefs(f *testing.F) {
	f.Add(`{"filer": "docker.io/fork/tesk-core-filer@` + digestA + `"}`)
	f.Add(`{"filer": "sha256:1"}`)
	f.Add(`[`)
	target := publish.Target{Registry: "docker.io", Org: "fork"}
	f.Fuzz(func(t *testing.T, in string) {
		// Never a panic; what is accepted is JSON, and every image it names is in the
		// target's organisation, by a checked digest.
		got, err := publish.ParseRefs(in, target)
		if err != nil {
			return
		}
		if !json.Valid([]byte(in)) || len(got) == 0 {
			t.Fatalf("ParseRefs(%q) accepted %+v", in, got)
		}
		for _, p := range got {
			if !strings.HasPrefix(p.Repository, "docker.io/fork/") || p.Check() != nil {
				t.Errorf("ParseRefs(%q) accepted %+v", in, p)
			}
		}
	})
}
