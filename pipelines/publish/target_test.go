package publish_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"dagger/shipyard/pipelines/publish"
)

var digestA = "sha256:" + strings.Repeat("a", 64)

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

func TestFromDigests(t *testing.T) {
	images := []publish.Artifact{
		{Name: "filer", Repository: "tesk-core-filer"},
		{Name: "taskmaster", Repository: "tesk-core-taskmaster"},
	}
	target := publish.Target{Registry: "docker.io", Org: "fork"}
	tests := []struct {
		name    string
		digests map[string]string
		want    []publish.Pushed
		wantErr string
	}{
		{name: "every image", digests: map[string]string{"filer": digestA, "taskmaster": digestA}, want: []publish.Pushed{
			{Name: "filer", Repository: "docker.io/fork/tesk-core-filer", Digest: digestA},
			{Name: "taskmaster", Repository: "docker.io/fork/tesk-core-taskmaster", Digest: digestA},
		}},
		{name: "one missing", digests: map[string]string{"filer": digestA}, wantErr: "no digest for image taskmaster"},
		{name: "an unknown image", digests: map[string]string{"filer": digestA, "taskmaster": digestA, "api": digestA}, wantErr: "digest given for api"},
		{name: "a tag", digests: map[string]string{"filer": "dev", "taskmaster": digestA}, wantErr: "not sha256:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := publish.FromDigests(tt.digests, images, target)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("= %+v, %v", got, err)
			}
			if back := publish.Digests(got); !reflect.DeepEqual(back, tt.digests) {
				t.Errorf("Digests round trip = %v", back)
			}
		})
	}
	if got := (publish.Target{Registry: "docker.io/", Org: "elixircloud"}).Repository(images[0]); got != "docker.io/elixircloud/tesk-core-filer" {
		t.Errorf("Repository = %s", got)
	}
}

// A job per image passes the digest of its own image: FromSomeDigests takes the images
// named, in the images' order, and refuses what FromDigests refuses but a missing image.
func TestFromSomeDigests(t *testing.T) {
	images := []publish.Artifact{
		{Name: "filer", Repository: "tesk-core-filer"},
		{Name: "taskmaster", Repository: "tesk-core-taskmaster"},
	}
	target := publish.Target{Registry: "docker.io", Org: "fork"}
	tests := []struct {
		name    string
		digests map[string]string
		want    []publish.Pushed
		wantErr string
	}{
		{name: "one image", digests: map[string]string{"taskmaster": digestA}, want: []publish.Pushed{
			{Name: "taskmaster", Repository: "docker.io/fork/tesk-core-taskmaster", Digest: digestA},
		}},
		{name: "every image", digests: map[string]string{"taskmaster": digestA, "filer": digestA}, want: []publish.Pushed{
			{Name: "filer", Repository: "docker.io/fork/tesk-core-filer", Digest: digestA},
			{Name: "taskmaster", Repository: "docker.io/fork/tesk-core-taskmaster", Digest: digestA},
		}},
		{name: "none", digests: map[string]string{}, wantErr: "no digest given"},
		{name: "an unknown image", digests: map[string]string{"api": digestA}, wantErr: "digest given for api"},
		{name: "a tag", digests: map[string]string{"filer": "dev"}, wantErr: "not sha256:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := publish.FromSomeDigests(tt.digests, images, target)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("= %+v, %v", got, err)
			}
		})
	}
}

func TestParseDigests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    map[string]string
		wantErr string
	}{
		{in: `{"filer": "sha256:1", "taskmaster": "sha256:2"}`, want: map[string]string{"filer": "sha256:1", "taskmaster": "sha256:2"}},
		{in: `{}`, want: map[string]string{}},
		{in: `["sha256:1"]`, wantErr: "want the JSON push-by-digest printed"},
		{in: `filer=sha256:1`, wantErr: "want the JSON push-by-digest printed"},
	}
	for _, tt := range tests {
		got, err := publish.ParseDigests(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseDigests(%q) = %v, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseDigests(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func FuzzParseDigests(f *testing.F) {
	f.Add(`{"filer": "sha256:1"}`)
	f.Add(`[`)
	f.Fuzz(func(t *testing.T, in string) {
		// Never a panic; what is accepted is JSON.
		if _, err := publish.ParseDigests(in); err == nil && !json.Valid([]byte(in)) {
			t.Errorf("ParseDigests(%q) accepted what is not JSON", in)
		}
	})
}
