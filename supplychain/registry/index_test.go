package registry

import (
	"context"
	"errors"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

func TestCheckPlatforms(t *testing.T) {
	amd := v1.Platform{OS: "linux", Architecture: "amd64"}
	arm := v1.Platform{OS: "linux", Architecture: "arm64"}
	armv7 := v1.Platform{OS: "linux", Architecture: "arm", Variant: "v7"}
	for _, tc := range []struct {
		name      string
		platforms []v1.Platform
		wantErr   string
	}{
		{"two platforms", []v1.Platform{amd, arm}, ""},
		{"one platform", []v1.Platform{arm}, ""},
		{"variants differ", []v1.Platform{armv7, {OS: "linux", Architecture: "arm", Variant: "v6"}}, ""},
		{"none", nil, "at least one"},
		{"twice", []v1.Platform{amd, arm, amd}, "linux/amd64 is given twice"},
		{"no architecture", []v1.Platform{amd, {OS: "linux"}}, "platform image 1 has no OS or architecture"},
		{"no OS", []v1.Platform{{Architecture: "arm64"}}, "platform image 0 has no OS or architecture"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckPlatforms(tc.platforms)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckPlatforms: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("CheckPlatforms = %v, want an error with %q", err, tc.wantErr)
			}
		})
	}
}

// platformImage is a random image (real layers) whose config names the platform os/arch.
func platformImage(t *testing.T, platform string) v1.Image {
	t.Helper()
	p, err := v1.ParsePlatform(platform)
	if err != nil {
		t.Fatal(err)
	}
	img := randomImage(t)
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func twoPlatformIndex(t *testing.T) (v1.ImageIndex, []v1.Image) {
	t.Helper()
	imgs := []v1.Image{platformImage(t, "linux/amd64"), platformImage(t, "linux/arm64")}
	idx, err := NewIndex(imgs)
	if err != nil {
		t.Fatalf("NewIndex: %v", err)
	}
	return idx, imgs
}

func TestNewIndexCarriesEachPlatform(t *testing.T) {
	idx, imgs := twoPlatformIndex(t)
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if mt, _ := idx.MediaType(); mt != types.OCIImageIndex {
		t.Errorf("index media type = %s, want %s", mt, types.OCIImageIndex)
	}
	want := []string{"linux/amd64", "linux/arm64"}
	if len(m.Manifests) != len(want) {
		t.Fatalf("index lists %d manifests, want %d", len(m.Manifests), len(want))
	}
	for i, d := range m.Manifests {
		if d.Platform == nil || d.Platform.String() != want[i] {
			t.Errorf("entry %d platform = %v, want %s", i, d.Platform, want[i])
		}
		if d.Digest.String() != digestOf(t, imgs[i]) {
			t.Errorf("entry %d digest = %s, want the image's %s", i, d.Digest, digestOf(t, imgs[i]))
		}
	}
	if _, err := NewIndex([]v1.Image{platformImage(t, "linux/arm64"), platformImage(t, "linux/arm64")}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("NewIndex of one platform twice = %v, want a refusal", err)
	}
	if _, err := NewIndex([]v1.Image{randomImage(t)}); err == nil || !strings.Contains(err.Error(), "no OS or architecture") {
		t.Errorf("NewIndex of an image without a platform = %v, want a refusal", err)
	}
}

func TestPushIndexByDigest(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("tesk-core-filer")
	idx, imgs := twoPlatformIndex(t)
	before := reg.state(t, repo)

	got, err := PushIndexByDigest(t.Context(), repo, idx, reg.auth, reg.opts()...)
	if err != nil {
		t.Fatalf("PushIndexByDigest: %v", err)
	}
	h, _ := idx.Digest()
	if got != h.String() {
		t.Errorf("digest = %s, want the index's %s", got, h)
	}
	for _, d := range append([]string{got}, digestOf(t, imgs[0]), digestOf(t, imgs[1])) {
		if !reg.has(t, repo, d) {
			t.Errorf("%s@%s does not resolve", repo, d)
		}
	}
	if after := reg.state(t, repo); !equalMaps(after, before) {
		t.Errorf("tags changed: %v, before %v", after, before)
	}

	mark := reg.mark()
	again, err := PushIndexByDigest(t.Context(), repo, idx, reg.auth, reg.opts()...)
	if err != nil || again != got {
		t.Fatalf("second push = %s, %v; want %s", again, err, got)
	}
	if w := reg.writesSince(mark); len(w) != 0 {
		t.Errorf("second push wrote %v, want nothing", w)
	}
}

func TestPushIndexByDigestRefuses(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("tesk-core-filer")
	inner, _ := twoPlatformIndex(t)
	nested := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex),
		mutate.IndexAddendum{Add: inner, Descriptor: v1.Descriptor{MediaType: types.OCIImageIndex, Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}})
	noPlatform := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex),
		mutate.IndexAddendum{Add: randomImage(t), Descriptor: v1.Descriptor{MediaType: types.OCIManifestSchema1}})
	for _, tc := range []struct {
		name    string
		idx     v1.ImageIndex
		wantErr string
	}{
		{"nil", nil, "no image index"},
		{"index of indexes", nested, "not single-platform image manifests"},
		{"entry without a platform", noPlatform, "no OS or architecture"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mark := reg.mark()
			_, err := PushIndexByDigest(t.Context(), repo, tc.idx, reg.auth, reg.opts()...)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("PushIndexByDigest = %v, want an error with %q", err, tc.wantErr)
			}
			if w := reg.writesSince(mark); len(w) != 0 {
				t.Errorf("refused push wrote %v", w)
			}
		})
	}
}

// The tag rules hold for an index as for an image: a version tag written on an index
// never moves to another index, and latest moves between indexes.
func TestTagRulesHoldForIndexes(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("tesk-core-taskmaster")
	first, _ := twoPlatformIndex(t)
	second, _ := twoPlatformIndex(t)
	d1, err := PushIndexByDigest(t.Context(), repo, first, reg.auth, reg.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := PushIndexByDigest(t.Context(), repo, second, reg.auth, reg.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanTags(tesk, repo, d1, []string{"0.11.0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ApplyTags(t.Context(), tesk, repo, d1, plan, reg.auth, nil, reg.opts()...); err != nil {
		t.Fatalf("tag the first index: %v", err)
	}
	if got := reg.state(t, repo)["0.11.0"]; got != d1 {
		t.Fatalf("0.11.0 = %s, want the index %s", got, d1)
	}

	current, err := ResolveTags(t.Context(), repo, []string{"0.11.0"}, reg.auth, reg.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	var ie *ImmutableTagError
	if _, err := PlanTags(tesk, repo, d2, []string{"0.11.0"}, current); !errors.As(err, &ie) {
		t.Errorf("plan 0.11.0 on another index = %v, want an ImmutableTagError", err)
	}
	// The recheck right before writing refuses too, for a plan made before the tag appeared.
	stale, err := PlanTags(tesk, repo, d2, []string{"0.11.0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ApplyTags(t.Context(), tesk, repo, d2, stale, reg.auth, nil, reg.opts()...); err == nil {
		t.Errorf("a stale plan moved 0.11.0 to %s", d2)
	}
	if got := reg.state(t, repo)["0.11.0"]; got != d1 {
		t.Errorf("0.11.0 moved to %s", got)
	}

	yes := func(context.Context) (bool, error) { return true, nil }
	for _, d := range []string{d1, d2} {
		if _, err := MoveLatest(t.Context(), tesk.Latest, []LatestImage{{Repo: repo, Digest: d}}, reg.auth, yes, reg.opts()...); err != nil {
			t.Fatalf("move latest to %s: %v", d, err)
		}
		if got := reg.state(t, repo)[tesk.Latest]; got != d {
			t.Errorf("latest = %s, want the index %s", got, d)
		}
	}
}

// Platforms reads back what an index lists, and nothing for a single image: the steps
// that start from a tag or a handed-over digest scan, attest and sign each platform image.
func TestPlatformsReadsTheIndex(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("tesk-core-filer")
	idx, imgs := twoPlatformIndex(t)
	index, err := PushIndexByDigest(t.Context(), repo, idx, reg.auth, reg.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Platforms(t.Context(), repo+"@"+index, reg.auth, reg.opts()...)
	if err != nil {
		t.Fatalf("Platforms: %v", err)
	}
	want := []PlatformDigest{{Platform: "linux/amd64", Digest: digestOf(t, imgs[0])}, {Platform: "linux/arm64", Digest: digestOf(t, imgs[1])}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Platforms = %v, want %v", got, want)
	}
	single, err := Platforms(t.Context(), repo+"@"+digestOf(t, imgs[0]), reg.auth, reg.opts()...)
	if err != nil || single != nil {
		t.Errorf("Platforms of a single image = %v, %v; want none", single, err)
	}
	if _, err := Platforms(t.Context(), repo+"@sha256:"+strings.Repeat("0", 64), reg.auth, reg.opts()...); err == nil {
		t.Error("Platforms of a digest the registry lacks succeeded")
	}
}

func TestListedPlatforms(t *testing.T) {
	amd := v1.Descriptor{MediaType: types.OCIManifestSchema1, Digest: v1.Hash{Algorithm: "sha256", Hex: strings.Repeat("a", 64)}, Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}
	arm := amd
	arm.Digest.Hex, arm.Platform = strings.Repeat("b", 64), &v1.Platform{OS: "linux", Architecture: "arm64", Variant: "v8"}
	// BuildKit lists the provenance of each image as an entry for unknown/unknown.
	att := amd
	att.Digest.Hex, att.Platform = strings.Repeat("c", 64), &v1.Platform{OS: "unknown", Architecture: "unknown"}
	nested := amd
	nested.MediaType = types.OCIImageIndex
	bare := amd
	bare.Platform = nil
	for _, tc := range []struct {
		name    string
		entries []v1.Descriptor
		want    []string
		wantErr string
	}{
		{"two platforms", []v1.Descriptor{amd, arm}, []string{"linux/amd64", "linux/arm64/v8"}, ""},
		{"attestation manifests are not images", []v1.Descriptor{amd, att}, []string{"linux/amd64"}, ""},
		{"nested index", []v1.Descriptor{nested}, nil, "not single-platform image manifests"},
		{"entry without a platform", []v1.Descriptor{bare}, nil, "no OS or architecture"},
		{"a platform twice", []v1.Descriptor{amd, amd}, nil, "given twice"},
		{"no platform image", []v1.Descriptor{att}, nil, "at least one platform image"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ListedPlatforms(&v1.IndexManifest{Manifests: tc.entries})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ListedPlatforms = %v, %v; want an error with %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range got {
				names = append(names, p.Platform)
			}
			if strings.Join(names, " ") != strings.Join(tc.want, " ") {
				t.Errorf("platforms = %v, want %v", names, tc.want)
			}
		})
	}
}

// The index assembled from platform images pushed one by one (each by its own job) is the
// index NewIndex builds of the same images, and it is refused when a digest is handed over
// under another platform, is missing, or names an index.
func TestIndexOfPushed(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("tesk-core-filer")
	want, imgs := twoPlatformIndex(t)
	var listed []PlatformDigest
	for i, p := range []string{"linux/amd64", "linux/arm64"} {
		d, err := PushByDigest(t.Context(), repo, imgs[i], reg.auth, reg.opts()...)
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, PlatformDigest{Platform: p, Digest: d})
	}
	idx, err := IndexOfPushed(t.Context(), repo, listed, reg.auth, reg.opts()...)
	if err != nil {
		t.Fatalf("IndexOfPushed: %v", err)
	}
	got, _ := idx.RawManifest()
	wantRaw, _ := want.RawManifest()
	if string(got) != string(wantRaw) {
		t.Errorf("assembled index\n%s\nwant the one built before the push\n%s", got, wantRaw)
	}
	d, err := PushIndexByDigest(t.Context(), repo, idx, reg.auth, reg.opts()...)
	if h, _ := want.Digest(); err != nil || d != h.String() {
		t.Errorf("pushed %s, %v; want %s", d, err, h)
	}

	swapped := []PlatformDigest{{Platform: "linux/amd64", Digest: listed[1].Digest}, {Platform: "linux/arm64", Digest: listed[0].Digest}}
	missing := []PlatformDigest{listed[0], {Platform: "linux/arm64", Digest: "sha256:" + strings.Repeat("0", 64)}}
	for _, tc := range []struct {
		name  string
		given []PlatformDigest
		want  string
	}{
		{"another platform's image", swapped, `handed over for linux/amd64 says it is for "linux/arm64"`},
		{"a digest the repository lacks", missing, "linux/arm64 image sha256:000"},
		{"an index", []PlatformDigest{{Platform: "linux/amd64", Digest: d}}, "is not a single image manifest"},
		{"a tag for a digest", []PlatformDigest{{Platform: "linux/amd64", Digest: "latest"}}, "is not of the form sha256"},
		{"nothing", nil, "at least one platform image"},
		{"one platform twice", []PlatformDigest{listed[0], listed[0]}, "given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := IndexOfPushed(t.Context(), repo, tc.given, reg.auth, reg.opts()...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
