package publish_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// A step run from a digest alone reads the platform images from the registry; a list that
// travelled with the digest must match what the index lists.
func TestResolvePlatforms(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newPlatformEnv(t, w)
	pushed, err := publish.PushByDigest(ctx, "push-by-digest", v.images, v.target)
	if err != nil {
		t.Fatal(err)
	}
	bare := make([]publish.Pushed, len(pushed))
	for i, p := range pushed {
		bare[i] = publish.Pushed{Name: p.Name, Repository: p.Repository, Digest: p.Digest}
	}
	got, err := publish.ResolvePlatforms(ctx, v.target, bare)
	if err != nil {
		t.Fatalf("ResolvePlatforms: %v", err)
	}
	if !reflect.DeepEqual(got, pushed) {
		t.Errorf("resolved %+v, want what the push recorded %+v", got, pushed)
	}
	// The same list again is accepted; a list naming another image is refused.
	if _, err := publish.ResolvePlatforms(ctx, v.target, pushed); err != nil {
		t.Errorf("the push's own list: %v", err)
	}
	forged := append([]publish.Pushed(nil), pushed...)
	forged[0].Platforms = []publish.PlatformDigest{{Platform: "linux/amd64", Digest: pushed[0].Platforms[0].Digest}}
	if _, err := publish.ResolvePlatforms(ctx, v.target, forged); err == nil || !strings.Contains(err.Error(), "the registry's index lists") {
		t.Errorf("a list that leaves arm64 out = %v, want a refusal", err)
	}
	// A single image lists no platform.
	single := publish.Pushed{Name: "filer", Repository: v.repo("filer"), Digest: pushed[0].Platforms[1].Digest}
	got, err = publish.ResolvePlatforms(ctx, v.target, []publish.Pushed{single})
	if err != nil || got[0].Platforms != nil {
		t.Errorf("a platform image resolved to %+v, %v; want no platforms", got, err)
	}
}

func TestSubjects(t *testing.T) {
	a, b, c := "sha256:"+strings.Repeat("a", 64), "sha256:"+strings.Repeat("b", 64), "sha256:"+strings.Repeat("c", 64)
	pushed := []publish.Pushed{
		{Name: "filer", Repository: "r/filer", Digest: a, Platforms: []publish.PlatformDigest{{Platform: "linux/amd64", Digest: b}, {Platform: "linux/arm64", Digest: c}}},
		{Name: "taskmaster", Repository: "r/taskmaster", Digest: c},
	}
	want := []publish.Pushed{
		{Name: "filer", Repository: "r/filer", Digest: a},
		{Name: "filer (linux/amd64)", Repository: "r/filer", Digest: b},
		{Name: "filer (linux/arm64)", Repository: "r/filer", Digest: c},
		{Name: "taskmaster", Repository: "r/taskmaster", Digest: c},
	}
	if got := publish.Subjects(pushed); !reflect.DeepEqual(got, want) {
		t.Errorf("Subjects = %+v, want %+v", got, want)
	}
}

func TestIndexSBOM(t *testing.T) {
	a, b, c := "sha256:"+strings.Repeat("a", 64), "sha256:"+strings.Repeat("b", 64), "sha256:"+strings.Repeat("c", 64)
	index := publish.Pushed{Name: "filer", Repository: "docker.io/elixircloud/tesk-core-filer", Digest: a}
	listed := []publish.PlatformDigest{{Platform: "linux/amd64", Digest: b}, {Platform: "linux/arm64", Digest: c}}
	doc, err := publish.IndexSBOM(index, listed)
	if err != nil {
		t.Fatal(err)
	}
	var bom struct {
		BOMFormat, SpecVersion string
		Metadata               struct {
			Component struct{ Type, Name, Version string }
		}
		Components []struct {
			Type, Version string
			BOMRef        string `json:"bom-ref"`
			Hashes        []struct{ Alg, Content string }
			Properties    []struct{ Name, Value string }
		}
		Dependencies []struct {
			Ref       string
			DependsOn []string
		}
	}
	if err := json.Unmarshal(doc, &bom); err != nil {
		t.Fatalf("the index SBOM is not JSON: %v\n%s", err, doc)
	}
	if bom.BOMFormat != "CycloneDX" || bom.SpecVersion != "1.6" || bom.Metadata.Component.Version != a || bom.Metadata.Component.Type != "container" {
		t.Errorf("described component %+v of %s %s", bom.Metadata.Component, bom.BOMFormat, bom.SpecVersion)
	}
	if len(bom.Components) != 2 || len(bom.Dependencies) != 1 || len(bom.Dependencies[0].DependsOn) != 2 {
		t.Fatalf("components %+v, dependencies %+v", bom.Components, bom.Dependencies)
	}
	for i, comp := range bom.Components {
		if comp.Version != listed[i].Digest || comp.Properties[0].Value != listed[i].Platform || comp.Hashes[0].Content != strings.TrimPrefix(listed[i].Digest, "sha256:") {
			t.Errorf("component %d = %+v, want %+v", i, comp, listed[i])
		}
		if bom.Dependencies[0].DependsOn[i] != comp.BOMRef {
			t.Errorf("the index does not depend on %s", comp.BOMRef)
		}
	}
	for _, tc := range []struct {
		name   string
		index  publish.Pushed
		listed []publish.PlatformDigest
	}{
		{"no platform image", index, nil},
		{"a platform without digest", index, []publish.PlatformDigest{{Platform: "linux/amd64"}}},
		{"an index by tag", publish.Pushed{Name: "filer", Repository: index.Repository, Digest: "latest"}, listed},
	} {
		if _, err := publish.IndexSBOM(tc.index, tc.listed); err == nil {
			t.Errorf("%s: IndexSBOM succeeded", tc.name)
		}
	}
}

func TestPushedCheckRefusesBadPlatformEntries(t *testing.T) {
	d := "sha256:" + strings.Repeat("a", 64)
	for _, tc := range []struct {
		name      string
		platforms []publish.PlatformDigest
		wantErr   string
	}{
		{"a platform twice", []publish.PlatformDigest{{Platform: "linux/amd64", Digest: d}, {Platform: "linux/amd64", Digest: d}}, "listed twice"},
		{"no platform", []publish.PlatformDigest{{Platform: "", Digest: d}}, "empty"},
		{"a tag for a digest", []publish.PlatformDigest{{Platform: "linux/arm64", Digest: "latest"}}, "not sha256"},
	} {
		p := publish.Pushed{Name: "filer", Repository: "docker.io/elixircloud/tesk-core-filer", Digest: d, Platforms: tc.platforms}
		if err := p.Check(); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: Check = %v, want %q", tc.name, err, tc.wantErr)
		}
	}
}
