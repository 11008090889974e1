// Package signing makes keyless Sigstore bundles (v0.3) of in-toto
// statements wrapped in DSSE envelopes: an ephemeral key, a Fulcio
// certificate for the OIDC identity, and a Rekor entry. The certificate
// authority and the transparency log are sigstore-go interfaces, so tests
// plug in Sigstore's test CA and production uses Fulcio and Rekor.
package signing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/sign"

	"dagger/shipyard/supplychain/registry"
)

const (
	// BundleMediaType is the media type of a Sigstore bundle v0.3.
	BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	// InTotoPayloadType is the DSSE payload type of in-toto statements.
	InTotoPayloadType = "application/vnd.in-toto+json"
	// CosignSignPredicateType is the predicate type cosign (v2.6,
	// --new-bundle-format) gives the statement it signs for an image.
	CosignSignPredicateType = "https://sigstore.dev/cosign/sign/v1"
	// StatementType is the in-toto Statement v1 type.
	StatementType = "https://in-toto.io/Statement/v1"

	// PublicGoodFulcioURL and PublicGoodRekorURL are Sigstore's public-good instances.
	PublicGoodFulcioURL = "https://fulcio.sigstore.dev"
	PublicGoodRekorURL  = "https://rekor.sigstore.dev"
)

// Signer signs statements keylessly.
type Signer struct {
	// CertificateProvider issues the signing certificate (Fulcio).
	CertificateProvider sign.CertificateProvider
	// TransparencyLogs record the signature (Rekor); at least one is required,
	// since verifiers (cosign, sigstore-go) take the signing time from it.
	TransparencyLogs []sign.Transparency
	// NewKeypair makes the signing key; nil means an ephemeral ECDSA P-256 key.
	NewKeypair func() (sign.Keypair, error)
}

// ErrPlainHTTP is a Fulcio or Rekor URL over plain HTTP to a host not named as one the
// traffic cannot leave the machine for: the identity token goes to Fulcio, and whoever
// reads it signs as its identity until it expires.
var ErrPlainHTTP = errors.New("refusing plain HTTP to a host that --plain-http does not name (one the traffic cannot leave the machine for)")

// NewSigner returns a Signer for the given Fulcio and Rekor (v1 API) URLs: https, or http
// to a host plainHTTP names (host names or IPs, without port).
func NewSigner(fulcioURL, rekorURL string, plainHTTP ...string) (*Signer, error) {
	if fulcioURL == "" || rekorURL == "" {
		return nil, errors.New("signing: Fulcio and Rekor URLs are required")
	}
	for _, raw := range []string{fulcioURL, rekorURL} {
		u, err := url.Parse(raw)
		switch {
		case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
			return nil, fmt.Errorf("signing: %q is not an http(s) URL", raw)
		case u.Scheme == "http" && !registry.PlainHTTPAllowed(u.Hostname(), plainHTTP):
			return nil, fmt.Errorf("signing: %s: %w", raw, ErrPlainHTTP)
		}
	}
	return &Signer{
		CertificateProvider: sign.NewFulcio(&sign.FulcioOptions{BaseURL: strings.TrimSuffix(fulcioURL, "/"), Timeout: 30 * time.Second, Retries: 2}),
		TransparencyLogs:    []sign.Transparency{sign.NewRekor(&sign.RekorOptions{BaseURL: strings.TrimSuffix(rekorURL, "/"), Timeout: 90 * time.Second, Retries: 2})},
	}, nil
}

// SignStatement signs an in-toto statement as a DSSE envelope and returns the
// Sigstore bundle (v0.3) as JSON, ready to be stored as an OCI referrer.
func (s *Signer) SignStatement(ctx context.Context, statement []byte, tok *Token) ([]byte, error) {
	if tok == nil {
		return nil, fmt.Errorf("signing: %w: missing", ErrToken)
	}
	if s.CertificateProvider == nil || len(s.TransparencyLogs) == 0 {
		return nil, errors.New("signing: a certificate provider and a transparency log are required")
	}
	if !json.Valid(statement) {
		return nil, errors.New("signing: statement is not JSON")
	}
	newKeypair := s.NewKeypair
	if newKeypair == nil {
		newKeypair = func() (sign.Keypair, error) { return sign.NewEphemeralKeypair(nil) }
	}
	keypair, err := newKeypair()
	if err != nil {
		return nil, fmt.Errorf("signing: generating key: %w", err)
	}
	pb, err := sign.Bundle(&sign.DSSEData{Data: statement, PayloadType: InTotoPayloadType}, keypair, sign.BundleOptions{
		Context:                    ctx,
		CertificateProvider:        s.CertificateProvider,
		CertificateProviderOptions: &sign.CertificateProviderOptions{IDToken: tok.raw},
		TransparencyLogs:           s.TransparencyLogs,
	})
	if err != nil {
		// Fulcio's and Rekor's clients build their own messages: redact the token.
		return nil, Redact(fmt.Errorf("signing: %w", err), tok.raw)
	}
	b, err := bundle.NewBundle(pb)
	if err != nil {
		return nil, fmt.Errorf("signing: invalid bundle: %w", err)
	}
	out, err := b.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("signing: encoding bundle: %w", err)
	}
	return out, nil
}

// CosignSignStatement returns the statement cosign v2.6 signs for an image
// with --new-bundle-format: subject = the manifest digest only, predicate
// type https://sigstore.dev/cosign/sign/v1, no predicate.
func CosignSignStatement(digest string) ([]byte, error) {
	alg, hex, ok := strings.Cut(digest, ":")
	if !ok || alg != "sha256" || len(hex) != 64 {
		return nil, fmt.Errorf("signing: digest %q is not sha256:<64 hex>", digest)
	}
	st := struct {
		Type          string `json:"_type"`
		Subject       []any  `json:"subject"`
		PredicateType string `json:"predicateType"`
	}{
		Type:          StatementType,
		Subject:       []any{map[string]any{"digest": map[string]string{alg: hex}}},
		PredicateType: CosignSignPredicateType,
	}
	b, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("signing: encoding statement: %w", err)
	}
	return b, nil
}
