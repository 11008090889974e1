package referrers_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"dagger/shipyard/supplychain/internal/testregistry"
	"dagger/shipyard/supplychain/referrers"
)

// TestStoreFormat checks the referrer manifest field by field against what
// cosign v2.6's WriteAttestationNewBundleFormat writes.
func TestStoreFormat(t *testing.T) {
	for _, api := range []bool{true, false} {
		t.Run(map[bool]string{true: "referrers API", false: "fallback tag"}[api], func(t *testing.T) {
			reg := testregistry.New(t, testregistry.Options{ReferrersAPI: api})
			d, _ := reg.PushRandom(t, "org/img")
			subject, err := remote.Head(d)
			if err != nil {
				t.Fatal(err)
			}
			bundle := []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`)
			created := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
			dg, err := referrers.Store(context.Background(), d, bundle, "https://slsa.dev/provenance/v1", created)
			if err != nil {
				t.Fatal(err)
			}
			desc, err := remote.Get(d.Repository.Digest(dg))
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				SchemaVersion int               `json:"schemaVersion"`
				MediaType     string            `json:"mediaType"`
				ArtifactType  string            `json:"artifactType"`
				Config        v1.Descriptor     `json:"config"`
				Layers        []v1.Descriptor   `json:"layers"`
				Subject       v1.Descriptor     `json:"subject"`
				Annotations   map[string]string `json:"annotations"`
			}
			if err := json.Unmarshal(desc.Manifest, &m); err != nil {
				t.Fatal(err)
			}
			checks := []struct{ field, got, want string }{
				{"schemaVersion", itoa(m.SchemaVersion), "2"},
				{"mediaType", m.MediaType, "application/vnd.oci.image.manifest.v1+json"},
				{"artifactType", m.ArtifactType, "application/vnd.dev.sigstore.bundle.v0.3+json"},
				{"config.mediaType", string(m.Config.MediaType), "application/vnd.oci.empty.v1+json"},
				{"config.digest", m.Config.Digest.String(), "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"},
				{"config.size", itoa(int(m.Config.Size)), "2"},
				{"layers", itoa(len(m.Layers)), "1"},
				{"layer mediaType", string(m.Layers[0].MediaType), "application/vnd.dev.sigstore.bundle.v0.3+json"},
				{"layer size", itoa(int(m.Layers[0].Size)), itoa(len(bundle))},
				{"subject.digest", m.Subject.Digest.String(), d.DigestStr()},
				{"subject.mediaType", string(m.Subject.MediaType), string(subject.MediaType)},
				{"subject.size", itoa(int(m.Subject.Size)), itoa(int(subject.Size))},
				{"content annotation", m.Annotations["dev.sigstore.bundle.content"], "dsse-envelope"},
				{"predicate annotation", m.Annotations["dev.sigstore.bundle.predicateType"], "https://slsa.dev/provenance/v1"},
				{"created annotation", m.Annotations["org.opencontainers.image.created"], "2025-06-01T12:00:00Z"},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s = %q, want %q", c.field, c.got, c.want)
				}
			}
			// Found the way cosign finds bundles: remote.Referrers.
			idx, err := remote.Referrers(d)
			if err != nil {
				t.Fatal(err)
			}
			im, err := idx.IndexManifest()
			if err != nil || len(im.Manifests) != 1 || im.Manifests[0].Digest.String() != dg {
				t.Fatalf("remote.Referrers = %+v, %v", im, err)
			}
			if !api {
				// The fallback tag schema: sha256-<hex> holds the index.
				tag := d.Repository.Tag(strings.Replace(d.DigestStr(), ":", "-", 1))
				if _, err := remote.Get(tag); err != nil {
					t.Errorf("fallback tag %s: %v", tag, err)
				}
			}
			got, err := referrers.List(context.Background(), d)
			if err != nil || len(got) != 1 || string(got[0].Bundle) != string(bundle) || got[0].PredicateType != "https://slsa.dev/provenance/v1" {
				t.Fatalf("List = %+v, %v", got, err)
			}
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestListSkipsForeignReferrers: other artifacts attached to the digest
// (an SBOM, a bundle of another subject) are not bundles of this digest.
func TestListSkipsForeignReferrers(t *testing.T) {
	reg := testregistry.New(t, testregistry.Options{ReferrersAPI: true})
	d, _ := reg.PushRandom(t, "org/img")
	other, _ := reg.PushRandom(t, "org/img")
	subject, err := remote.Head(d)
	if err != nil {
		t.Fatal(err)
	}
	// An SPDX SBOM referrer, as other tools attach them.
	sbom := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	sbom = mutate.ConfigMediaType(sbom, "application/spdx+json")
	sbom, err = mutate.AppendLayers(sbom, static.NewLayer([]byte(`{"spdxVersion":"SPDX-2.3"}`), "application/spdx+json"))
	if err != nil {
		t.Fatal(err)
	}
	sbom = mutate.Subject(sbom, *subject).(v1.Image)
	h, err := sbom.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(d.Repository.Digest(h.String()), sbom); err != nil {
		t.Fatal(err)
	}
	if _, err := referrers.Store(context.Background(), other, []byte(`{}`), "p", time.Now()); err != nil {
		t.Fatal(err)
	}
	mine, err := referrers.Store(context.Background(), d, []byte(`{"a":1}`), "p", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got, err := referrers.List(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Digest != mine {
		t.Errorf("List = %+v, want only %s", got, mine)
	}
}

func TestStoreRejects(t *testing.T) {
	reg := testregistry.New(t, testregistry.Options{})
	d, _ := reg.PushRandom(t, "org/img")
	missing, err := name.NewDigest(reg.Host + "/org/img@sha256:" + strings.Repeat("0", 64))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		d             name.Digest
		bundle        string
		predicateType string
		want          string
	}{
		{"no predicate type", d, `{}`, "", "predicate type"},
		{"not JSON", d, `nope`, "p", "not JSON"},
		{"unknown subject", missing, `{}`, "p", "resolving subject"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writes := reg.Writes()
			_, err := referrers.Store(context.Background(), tt.d, []byte(tt.bundle), tt.predicateType, time.Now())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if reg.Writes() != writes {
				t.Errorf("wrote to the registry before failing")
			}
		})
	}
}

// TestListSkipsOversizedForeignReferrers: anyone who can push to the repository can attach
// a bundle-typed referrer larger than any bundle; it is not ours (Store never writes one),
// so it is skipped rather than failing the listing, and with it the step's re-run check.
func TestListSkipsOversizedForeignReferrers(t *testing.T) {
	reg := testregistry.New(t, testregistry.Options{ReferrersAPI: true})
	d, _ := reg.PushRandom(t, "org/img")
	subject, err := remote.Head(d)
	if err != nil {
		t.Fatal(err)
	}
	huge := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	huge = mutate.ConfigMediaType(huge, referrers.EmptyMediaType)
	huge, err = mutate.AppendLayers(huge, static.NewLayer([]byte(strings.Repeat(" ", 8<<20+1)), referrers.BundleMediaType))
	if err != nil {
		t.Fatal(err)
	}
	huge = mutate.Subject(huge, *subject).(v1.Image)
	h, err := huge.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(d.Repository.Digest(h.String()), huge); err != nil {
		t.Fatal(err)
	}
	mine, err := referrers.Store(context.Background(), d, []byte(`{"a":1}`), "p", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got, err := referrers.List(context.Background(), d)
	if err != nil {
		t.Fatalf("List failed on a foreign referrer: %v", err)
	}
	if len(got) != 1 || got[0].Digest != mine {
		t.Errorf("List = %d referrers, want only %s", len(got), mine)
	}
}
