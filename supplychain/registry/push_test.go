package registry

import (
	"net/http"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

func TestPushByDigestCreatesNoTag(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("tesk-core-filer")
	// An earlier image holds dev; the push must not touch it nor add a tag.
	old := pushed(t, reg, repo)
	tagWith(t, reg, repo, old, "dev")
	before := reg.state(t, repo)

	img := randomImage(t)
	got, err := PushByDigest(t.Context(), repo, img, reg.auth, reg.opts()...)
	if err != nil {
		t.Fatalf("PushByDigest: %v", err)
	}
	if want := digestOf(t, img); got != want {
		t.Errorf("digest = %s, want the image's %s", got, want)
	}
	if !reg.has(t, repo, got) {
		t.Errorf("%s@%s does not resolve", repo, got)
	}
	if after := reg.state(t, repo); !equalMaps(after, before) {
		t.Errorf("tags changed: %v, before %v", after, before)
	}
	if d, err := Digest(t.Context(), repo+"@"+got, reg.auth, reg.opts()...); err != nil || d != got {
		t.Errorf("Digest(%s@…) = %s, %v", repo, d, err)
	}
}

func TestPushByDigestTwiceIsANoOp(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("tesk-core-taskmaster")
	img := randomImage(t)
	first, err := PushByDigest(t.Context(), repo, img, reg.auth, reg.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	mark := reg.mark()
	second, err := PushByDigest(t.Context(), repo, img, reg.auth, reg.opts()...)
	if err != nil {
		t.Fatalf("second push: %v", err)
	}
	if second != first {
		t.Errorf("second push gave %s, first %s", second, first)
	}
	if w := reg.writesSince(mark); len(w) != 0 {
		t.Errorf("second push wrote: %v", w)
	}
	if tags := reg.state(t, repo); len(tags) != 0 {
		t.Errorf("tags appeared: %v", tags)
	}
}

func TestPushByDigestFailsMidPushThenARerunFinishes(t *testing.T) {
	tests := []struct {
		name  string
		match func(*http.Request) bool
	}{
		{"blob uploads fail", func(r *http.Request) bool {
			return strings.Contains(r.URL.Path, "/blobs/uploads/") && (r.Method == http.MethodPatch || r.Method == http.MethodPut)
		}},
		{"manifest PUTs fail", func(r *http.Request) bool {
			return strings.Contains(r.URL.Path, "/manifests/") && r.Method == http.MethodPut
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := newTestRegistry(t)
			repo := reg.repo("img")
			img := randomImage(t)
			want := digestOf(t, img)

			// More failures than go-containerregistry retries.
			reg.failFirst(100, tt.match)
			_, err := PushByDigest(t.Context(), repo, img, reg.auth, reg.opts()...)
			if err == nil {
				t.Fatal("push succeeded against a failing registry")
			}
			assertNoSecret(t, err, reg.auth)
			if reg.failures() == 0 {
				t.Fatal("no failure was injected")
			}
			if reg.has(t, repo, want) {
				t.Error("the manifest exists after a failed push")
			}
			if tags := reg.state(t, repo); len(tags) != 0 {
				t.Errorf("tags after the failed push: %v", tags)
			}

			reg.failFirst(0, nil)
			got, err := PushByDigest(t.Context(), repo, img, reg.auth, reg.opts()...)
			if err != nil {
				t.Fatalf("re-run: %v", err)
			}
			if got != want {
				t.Errorf("re-run pushed %s, want %s", got, want)
			}
			if tags := reg.state(t, repo); len(tags) != 0 {
				t.Errorf("tags after the re-run: %v", tags)
			}
		})
	}
}

// indexTyped is an image that claims to be an index.
type indexTyped struct{ v1.Image }

func (indexTyped) MediaType() (types.MediaType, error) { return types.OCIImageIndex, nil }

func TestPushByDigestRejectsBadInput(t *testing.T) {
	reg := newTestRegistry(t)
	good := randomImage(t)
	tests := []struct {
		name string
		repo string
		img  v1.Image
	}{
		{"no registry", "org/img", good},
		{"tag in repository", reg.repo("img") + ":dev", good},
		{"digest in repository", reg.repo("img") + "@" + digestA, good},
		{"credentials in reference", "bot:" + testAuth.Password + "@" + reg.repo("img"), good},
		{"no image", reg.repo("img"), nil},
		{"an index is not an image", reg.repo("img"), indexTyped{good}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := reg.mark()
			_, err := PushByDigest(t.Context(), tt.repo, tt.img, reg.auth, reg.opts()...)
			if err == nil {
				t.Fatal("PushByDigest accepted it")
			}
			assertNoSecret(t, err, reg.auth)
			if w := reg.writesSince(mark); len(w) != 0 {
				t.Errorf("wrote %v", w)
			}
		})
	}
}
