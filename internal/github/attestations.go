package github

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// GitHub's artifact attestation store holds Sigstore bundles per repository, listed by
// the SHA-256 digest of a subject of the in-toto statement each signs; `gh attestation
// verify` reads it. Shipyard uploads there the bundles it already stores beside each image
// as OCI referrers (provenance, SBOM), so either store proves the same thing.

// Attestation is one entry GitHub's attestation store lists for a subject digest.
type Attestation struct {
	// Bundle is the Sigstore bundle as the store gives it back.
	Bundle       json.RawMessage `json:"bundle"`
	RepositoryID int64           `json:"repository_id"`
}

// AttestationsWriteAdvice is the fix for an upload GitHub refused: the workflow's token
// holds no attestations: write unless the job asks for it.
const AttestationsWriteAdvice = "the workflow's job needs `permissions: attestations: write` (beside `id-token: write`, which signing needs)"

// ErrNotAttestation is a bundle that is not a Sigstore bundle of an in-toto statement with
// a sha256 subject: the store could not list it by any digest.
var ErrNotAttestation = errors.New("not a Sigstore bundle of an in-toto statement with a sha256 subject")

// AttestationSubjects returns the subjects a bundle attests, as "sha256:<hex>" digests in
// the statement's order without repeats: what GitHub's store lists it by. The bundle is
// read, never trusted: its signature is for a verifier to check.
func AttestationSubjects(bundle []byte) ([]string, error) {
	var b struct {
		DSSEEnvelope *struct {
			Payload     string `json:"payload"`
			PayloadType string `json:"payloadType"`
		} `json:"dsseEnvelope"`
	}
	if err := json.Unmarshal(bundle, &b); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotAttestation, err)
	}
	if b.DSSEEnvelope == nil || b.DSSEEnvelope.PayloadType != "application/vnd.in-toto+json" {
		return nil, fmt.Errorf("%w: no DSSE envelope of an in-toto statement", ErrNotAttestation)
	}
	payload, err := base64.StdEncoding.DecodeString(b.DSSEEnvelope.Payload)
	if err != nil {
		return nil, fmt.Errorf("%w: the envelope's payload: %w", ErrNotAttestation, err)
	}
	var st struct {
		Subject []struct {
			Digest map[string]string `json:"digest"`
		} `json:"subject"`
	}
	if err := json.Unmarshal(payload, &st); err != nil {
		return nil, fmt.Errorf("%w: the statement: %w", ErrNotAttestation, err)
	}
	var out []string
	for _, s := range st.Subject {
		h := strings.ToLower(s.Digest["sha256"])
		if _, err := hex.DecodeString(h); err != nil || len(h) != 64 {
			continue
		}
		if d := "sha256:" + h; !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: the statement has no sha256 subject", ErrNotAttestation)
	}
	return out, nil
}

// BundleDigest is the SHA-256 of a bundle's JSON with its formatting taken away (objects'
// keys sorted, no spaces), so the bundle Shipyard sent and the one the store gives back
// compare equal however either was written.
func BundleDigest(bundle []byte) (string, error) {
	d := json.NewDecoder(bytes.NewReader(bundle))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "", fmt.Errorf("the bundle is not JSON: %w", err)
	}
	if d.More() {
		return "", errors.New("the bundle is not one JSON value")
	}
	canonical, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("the bundle: %w", err)
	}
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// AttestationPresent reports whether listed, what the store lists for a subject, holds
// bundle already: an upload of it would store a second copy, since GitHub keeps what it is
// sent. A listed entry whose bundle does not read is no copy of anything.
func AttestationPresent(bundle []byte, listed []Attestation) (bool, error) {
	want, err := BundleDigest(bundle)
	if err != nil {
		return false, err
	}
	for _, a := range listed {
		if got, err := BundleDigest(a.Bundle); err == nil && got == want {
			return true, nil
		}
	}
	return false, nil
}

// UploadAttestation stores bundle, a Sigstore bundle attesting image at digest
// ("sha256:<hex>"), in owner/repo's attestation store unless the store lists it for
// digest already, and reports whether it uploaded. An upload whose outcome is unknown (a
// 5xx, a lost answer) is read back before it is repeated, so a re-run or a retry never
// stores a second copy. Errors name the image and digest; a refusal says the fix.
func UploadAttestation(ctx context.Context, api API, owner, repo, image, digest string, bundle []byte) (uploaded bool, err error) {
	what := fmt.Sprintf("attestation of %s@%s in %s/%s", image, digest, owner, repo)
	subjects, err := AttestationSubjects(bundle)
	if err != nil {
		return false, fmt.Errorf("%s: %w", what, err)
	}
	if !slices.Contains(subjects, strings.ToLower(digest)) {
		return false, fmt.Errorf("%s: the bundle attests %s, not this digest", what, strings.Join(subjects, ", "))
	}
	present := func(ctx context.Context) (bool, error) {
		listed, err := api.Attestations(ctx, owner, repo, digest)
		if err != nil {
			return false, err
		}
		return AttestationPresent(bundle, listed)
	}
	if done, err := present(ctx); err != nil {
		return false, fmt.Errorf("%s: listing what the store holds: %w", what, attestationAdvice(err))
	} else if done {
		return false, nil
	}
	err = api.WriteThenVerify(ctx, func(ctx context.Context) error {
		_, err := api.CreateAttestation(ctx, owner, repo, bundle)
		return err
	}, present)
	if err != nil {
		return false, fmt.Errorf("%s: %w", what, attestationAdvice(err))
	}
	return true, nil
}

// attestationAdvice adds to GitHub's refusal what the maintainer does about it.
func attestationAdvice(err error) error {
	switch StatusOf(err) {
	case http.StatusForbidden:
		return fmt.Errorf("%w; %s", err, AttestationsWriteAdvice)
	case http.StatusNotFound:
		return fmt.Errorf("%w; the repository does not exist or the token cannot see it (a classic token needs the repo scope; a workflow's token, %s)", err, AttestationsWriteAdvice)
	}
	return err
}

// AttestationStore is owner/repo's attestation store, reached through api: what a flow
// that signs gives publishing (publish.AttestationStore) to store the bundles it verified.
type AttestationStore struct {
	API         API
	Owner, Repo string
}

// Store is UploadAttestation into the store's repository.
func (s AttestationStore) Store(ctx context.Context, image, digest string, bundle []byte) (bool, error) {
	return UploadAttestation(ctx, s.API, s.Owner, s.Repo, image, digest, bundle)
}
