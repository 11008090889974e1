// Package referrers stores Sigstore bundles as OCI referrers of an image
// digest, the way cosign v2.6 (--new-bundle-format) and GitHub's
// attest-build-provenance push them, and finds them again through the OCI
// referrers API or, on registries without it, the sha256-<hex> fallback tag
// (go-containerregistry's remote.Referrers does both).
package referrers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Formats of a bundle referrer, as cosign's WriteAttestationNewBundleFormat
// writes them.
const (
	// BundleMediaType is both the manifest's artifactType and the layer's media type.
	BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	// EmptyMediaType is the OCI empty descriptor's media type, used as config.
	EmptyMediaType = "application/vnd.oci.empty.v1+json"

	AnnotationContent       = "dev.sigstore.bundle.content"
	AnnotationPredicateType = "dev.sigstore.bundle.predicateType"
	AnnotationCreated       = "org.opencontainers.image.created"
	// ContentDSSE is the AnnotationContent value of a bundle holding a DSSE envelope.
	ContentDSSE = "dsse-envelope"
)

// maxBundleSize bounds what we read from a registry for one bundle.
const maxBundleSize = 8 << 20

// emptyJSON is the content of the OCI empty descriptor.
var emptyJSON = []byte("{}")

// Referrer is a Sigstore bundle attached to an image digest.
type Referrer struct {
	// Digest is the referrer manifest's digest.
	Digest string `json:"digest"`
	// PredicateType is the annotated predicate type of the bundle's statement.
	PredicateType string `json:"predicateType"`
	// Bundle is the Sigstore bundle JSON.
	Bundle []byte `json:"-"`
}

// manifest is an OCI image manifest with the OCI 1.1 fields cosign writes.
type manifest struct {
	SchemaVersion int64             `json:"schemaVersion"`
	MediaType     types.MediaType   `json:"mediaType"`
	ArtifactType  string            `json:"artifactType,omitempty"`
	Config        v1.Descriptor     `json:"config"`
	Layers        []v1.Descriptor   `json:"layers"`
	Subject       *v1.Descriptor    `json:"subject,omitempty"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

// taggable hands our raw bytes to remote.Put unchanged.
type taggable struct{ raw []byte }

func (t taggable) RawManifest() ([]byte, error)        { return t.raw, nil }
func (t taggable) MediaType() (types.MediaType, error) { return types.OCIManifestSchema1, nil }

// Store attaches bundle to the image digest d as a referrer manifest:
// artifactType and layer media type BundleMediaType, the OCI empty config,
// subject = the image's descriptor, and cosign's annotations. It returns the
// referrer manifest's digest. created is written as the creation annotation.
func Store(ctx context.Context, d name.Digest, bundle []byte, predicateType string, created time.Time, opts ...remote.Option) (string, error) {
	if predicateType == "" {
		return "", errors.New("referrers: predicate type is required")
	}
	if !json.Valid(bundle) {
		return "", errors.New("referrers: bundle is not JSON")
	}
	opts = append(opts, remote.WithContext(ctx))
	subject, err := remote.Head(d, opts...)
	if err != nil {
		return "", fmt.Errorf("referrers: resolving subject %s: %w", d.DigestStr(), err)
	}
	if subject.Digest.String() != d.DigestStr() {
		return "", fmt.Errorf("referrers: registry answered digest %s for %s", subject.Digest, d.DigestStr())
	}
	config := static.NewLayer(emptyJSON, EmptyMediaType)
	layer := static.NewLayer(bundle, BundleMediaType)
	for _, l := range []v1.Layer{config, layer} {
		if err := remote.WriteLayer(d.Repository, l, opts...); err != nil {
			return "", fmt.Errorf("referrers: uploading blob: %w", err)
		}
	}
	configDesc, err := descriptor(config, EmptyMediaType)
	if err != nil {
		return "", err
	}
	configDesc.Data = emptyJSON
	layerDesc, err := descriptor(layer, BundleMediaType)
	if err != nil {
		return "", err
	}
	m := manifest{
		SchemaVersion: 2,
		MediaType:     types.OCIManifestSchema1,
		ArtifactType:  BundleMediaType,
		Config:        configDesc,
		Layers:        []v1.Descriptor{layerDesc},
		Subject:       &v1.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size},
		Annotations: map[string]string{
			AnnotationCreated:       created.UTC().Format(time.RFC3339),
			AnnotationContent:       ContentDSSE,
			AnnotationPredicateType: predicateType,
		},
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("referrers: encoding manifest: %w", err)
	}
	h, _, err := v1.SHA256(bytes.NewReader(raw))
	if err != nil {
		return "", fmt.Errorf("referrers: hashing manifest: %w", err)
	}
	// remote.Put also updates the sha256-<hex> fallback tag when the
	// registry does not support the referrers API.
	if err := remote.Put(d.Repository.Digest(h.String()), taggable{raw}, opts...); err != nil {
		return "", fmt.Errorf("referrers: uploading manifest: %w", err)
	}
	return h.String(), nil
}

func descriptor(l v1.Layer, mt types.MediaType) (v1.Descriptor, error) {
	dg, err := l.Digest()
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("referrers: %w", err)
	}
	sz, err := l.Size()
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("referrers: %w", err)
	}
	return v1.Descriptor{MediaType: mt, Digest: dg, Size: sz}, nil
}

// List returns the Sigstore bundle referrers of the image digest d, in the
// order the registry lists them. Each candidate manifest is fetched, because
// registries differ in what they copy into the referrers list (artifactType,
// annotations); manifests that are not bundle referrers of d are skipped.
func List(ctx context.Context, d name.Digest, opts ...remote.Option) ([]Referrer, error) {
	opts = append(opts, remote.WithContext(ctx))
	idx, err := remote.Referrers(d, opts...)
	if err != nil {
		return nil, fmt.Errorf("referrers: listing referrers of %s: %w", d.DigestStr(), err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("referrers: reading referrers of %s: %w", d.DigestStr(), err)
	}
	var out []Referrer
	for _, desc := range im.Manifests {
		if desc.ArtifactType != "" && desc.ArtifactType != BundleMediaType && desc.ArtifactType != EmptyMediaType {
			// Another kind of referrer (an SBOM, an old-style signature…).
			continue
		}
		r, ok, err := fetch(d, desc.Digest, opts)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}

func fetch(d name.Digest, h v1.Hash, opts []remote.Option) (Referrer, bool, error) {
	desc, err := remote.Get(d.Repository.Digest(h.String()), opts...)
	if err != nil {
		return Referrer{}, false, fmt.Errorf("referrers: fetching %s: %w", h, err)
	}
	var m manifest
	if err := json.Unmarshal(desc.Manifest, &m); err != nil {
		// Not ours to judge: a malformed foreign referrer is skipped.
		return Referrer{}, false, nil
	}
	if m.Subject == nil || m.Subject.Digest.String() != d.DigestStr() || len(m.Layers) != 1 || string(m.Layers[0].MediaType) != BundleMediaType {
		return Referrer{}, false, nil
	}
	if m.Layers[0].Size > maxBundleSize {
		// No bundle we write is that large, so it is not ours: skipped unread, so that
		// whoever attached it cannot stop the listing (and the steps that rely on it).
		return Referrer{}, false, nil
	}
	l, err := remote.Layer(d.Repository.Digest(m.Layers[0].Digest.String()), opts...)
	if err != nil {
		return Referrer{}, false, fmt.Errorf("referrers: fetching bundle %s: %w", m.Layers[0].Digest, err)
	}
	rc, err := l.Compressed()
	if err != nil {
		return Referrer{}, false, fmt.Errorf("referrers: fetching bundle %s: %w", m.Layers[0].Digest, err)
	}
	defer rc.Close()
	// Reading to the end lets go-containerregistry check the blob's digest.
	b, err := io.ReadAll(io.LimitReader(rc, maxBundleSize+1))
	if err != nil {
		return Referrer{}, false, fmt.Errorf("referrers: reading bundle %s: %w", m.Layers[0].Digest, err)
	}
	if int64(len(b)) != m.Layers[0].Size {
		return Referrer{}, false, fmt.Errorf("referrers: bundle %s has %d bytes, manifest says %d", m.Layers[0].Digest, len(b), m.Layers[0].Size)
	}
	return Referrer{Digest: h.String(), PredicateType: m.Annotations[AnnotationPredicateType], Bundle: b}, true, nil
}
