// Package steps holds the publishing steps of the command, attest (of the
// SLSA provenance, or of an SBOM) and sign: each signs one in-toto statement
// about an image digest and stores the
// bundle as an OCI referrer of that digest. Both are idempotent: when the
// digest already carries a bundle of the same predicate type for the same
// subject that verifies against the trusted root as signed by the token's
// identity (a previous run that succeeded), they change nothing; any other
// bundle is someone else's, and they sign again.
package steps

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"dagger/shipyard/supplychain/wire"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	sgbundle "github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"

	"dagger/shipyard/supplychain/provenance"
	"dagger/shipyard/supplychain/referrers"
	"dagger/shipyard/supplychain/registry"
	"dagger/shipyard/supplychain/sbom"
	"dagger/shipyard/supplychain/signing"
)

// Config is what both steps need.
type Config struct {
	// Image is the image reference; it must name a digest.
	Image string
	// Token is the OIDC identity token, read and checked beforehand.
	Token *signing.Token
	// Signer signs statements.
	Signer *signing.Signer
	// Remote are the registry options (authentication, transport): Registry's.
	Remote []remote.Option
	// PlainHTTP are the hosts plain HTTP may go to, as Registry was given them.
	PlainHTTP []string
	// Trusted is the trusted root a bundle already attached must verify
	// against, with the token's identity and issuer, before it counts as a
	// previous run's result. Required.
	Trusted root.TrustedMaterial
	// Now gives the time of the referrer's creation annotation; nil means time.Now.
	Now func() time.Time
}

// Outcome is the wire's: the JSON result of a step, for the next job.
type Outcome = wire.Outcome

// Attest signs the SLSA provenance built from in and attaches it to the
// image digest. in.ImageName and in.ImageDigest are taken from c.Image.
func Attest(ctx context.Context, c Config, in provenance.Input) (Outcome, error) {
	d, err := digestRef(c.Image, c.PlainHTTP)
	if err != nil {
		return Outcome{}, err
	}
	in.ImageName = d.Repository.Name()
	in.ImageDigest = d.DigestStr()
	st, err := provenance.Build(in)
	if err != nil {
		return Outcome{}, err
	}
	payload, err := provenance.Marshal(st)
	if err != nil {
		return Outcome{}, err
	}
	return publish(ctx, "attest", c, d, provenance.SLSAPredicateType, payload)
}

// AttestSBOM signs the CycloneDX JSON SBOM bom of the image digest as an
// in-toto statement of predicate type https://cyclonedx.org/bom (what
// `cosign verify-attestation --type cyclonedx` requires) and attaches it to
// the digest. An SBOM bundle an earlier run attached and that verifies for the
// token's identity counts as done, even if a new SBOM of the same image would
// differ in its serial number or timestamp: the image is the same.
func AttestSBOM(ctx context.Context, c Config, bom []byte) (Outcome, error) {
	d, err := digestRef(c.Image, c.PlainHTTP)
	if err != nil {
		return Outcome{}, err
	}
	st, err := sbom.Statement(d.Repository.Name(), d.DigestStr(), bom)
	if err != nil {
		return Outcome{}, err
	}
	payload, err := provenance.Marshal(st)
	if err != nil {
		return Outcome{}, err
	}
	return publish(ctx, "attest", c, d, sbom.CycloneDXPredicateType, payload)
}

// Sign signs the image digest the way cosign v2.6 does with
// --new-bundle-format and attaches the bundle to it.
func Sign(ctx context.Context, c Config) (Outcome, error) {
	d, err := digestRef(c.Image, c.PlainHTTP)
	if err != nil {
		return Outcome{}, err
	}
	payload, err := signing.CosignSignStatement(d.DigestStr())
	if err != nil {
		return Outcome{}, err
	}
	return publish(ctx, "sign", c, d, signing.CosignSignPredicateType, payload)
}

// digestRef reads image as the registry command reads a reference (strictly, plain HTTP
// only to a host plainHTTP names), and requires a digest.
func digestRef(image string, plainHTTP []string) (name.Digest, error) {
	if image == "" {
		return name.Digest{}, errors.New("an image reference is required")
	}
	ref, err := registry.ParseReference(image, plainHTTP...)
	if err != nil {
		return name.Digest{}, fmt.Errorf("image: %w", err)
	}
	d, ok := ref.(name.Digest)
	if !ok {
		return name.Digest{}, fmt.Errorf("image %q must be a reference by digest (<registry>/<repo>@sha256:…)", image)
	}
	return d, nil
}

func publish(ctx context.Context, step string, c Config, d name.Digest, predicateType string, statement []byte) (Outcome, error) {
	// The token is checked before the registry is touched, so a missing or
	// expired token stops the step before anything is written.
	if c.Token == nil {
		return Outcome{}, fmt.Errorf("%w: missing", signing.ErrToken)
	}
	if !time.Now().Before(c.Token.Expiry) {
		return Outcome{}, fmt.Errorf("%w: expired", signing.ErrToken)
	}
	if c.Signer == nil {
		return Outcome{}, errors.New("no signer configured")
	}
	if c.Trusted == nil {
		return Outcome{}, errors.New("a trusted root is required, to tell an earlier run's bundle from anyone else's")
	}
	out := Outcome{Step: step, Image: d.String(), Digest: d.DigestStr(), PredicateType: predicateType,
		Identity: c.Token.Identity(), Issuer: c.Token.Issuer}

	existing, err := referrers.List(ctx, d, c.Remote...)
	if err != nil {
		return Outcome{}, err
	}
	for _, r := range existing {
		if r.PredicateType != predicateType {
			continue
		}
		if ok := c.previousRun(r, d, predicateType); ok {
			out.Referrer = r.Digest
			describe(&out, r.Bundle)
			return out, nil
		}
	}
	// Anything else of this predicate type (junk, another signer's, another
	// Sigstore's) is not our signature: sign again. An extra referrer does no
	// harm, and verifiers pick the bundle that verifies.

	bundle, err := c.Signer.SignStatement(ctx, statement, c.Token)
	if err != nil {
		return Outcome{}, err
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	ref, err := referrers.Store(ctx, d, bundle, predicateType, now(), c.Remote...)
	if err != nil {
		return Outcome{}, err
	}
	out.Referrer, out.Created = ref, true
	describe(&out, bundle)
	return out, nil
}

// previousRun reports whether r is the result of an earlier successful run
// of this step: a bundle whose DSSE statement has this predicate type and this
// digest as subject, and that verifies against the trusted root (transparency
// log entry, signed timestamp, at least one SCT) as signed by the token's
// identity and issuer.
func (c Config) previousRun(r referrers.Referrer, d name.Digest, predicateType string) bool {
	var b sgbundle.Bundle
	if err := b.UnmarshalJSON(r.Bundle); err != nil {
		return false
	}
	env, err := b.Envelope()
	if err != nil || env == nil {
		return false
	}
	st, err := env.Statement()
	if err != nil || st.GetPredicateType() != predicateType {
		return false
	}
	alg, hexDigest, _ := strings.Cut(d.DigestStr(), ":")
	found := false
	for _, s := range st.GetSubject() {
		found = found || s.GetDigest()[alg] == hexDigest
	}
	if !found {
		return false
	}
	raw, err := hex.DecodeString(hexDigest)
	if err != nil {
		return false
	}
	identity, err := sgverify.NewShortCertificateIdentity(c.Token.Issuer, "", c.Token.Identity(), "")
	if err != nil {
		return false
	}
	v, err := sgverify.NewVerifier(c.Trusted, sgverify.WithTransparencyLog(1), sgverify.WithIntegratedTimestamps(1), sgverify.WithSignedCertificateTimestamps(1))
	if err != nil {
		return false
	}
	_, err = v.Verify(&b, sgverify.NewPolicy(sgverify.WithArtifactDigest(alg, raw), sgverify.WithCertificateIdentity(identity)))
	return err == nil
}

// describe fills the certificate's identity and the log index of a bundle,
// for the output; a bundle it cannot read leaves them as they are (Store only
// writes valid ones).
func describe(out *Outcome, bundle []byte) {
	var b sgbundle.Bundle
	if err := b.UnmarshalJSON(bundle); err != nil {
		return
	}
	if vc, err := b.VerificationContent(); err == nil && vc.Certificate() != nil {
		if s, err := certificate.SummarizeCertificate(vc.Certificate()); err == nil {
			out.Identity, out.Issuer = s.SubjectAlternativeName, s.Issuer
		}
	}
	if entries, err := b.TlogEntries(); err == nil && len(entries) > 0 {
		out.LogIndex = entries[0].LogIndex()
	}
}

// Registry returns remote options for the given credentials; an empty username means
// anonymous access. The password stays in memory. Plain HTTP goes to the hosts plainHTTP
// names (host names or IPs, without port) and nowhere else, as in the registry command:
// go-containerregistry alone would send it to any loopback, RFC 1918 or *.local registry,
// and the password with it.
func Registry(username, password string, plainHTTP ...string) ([]remote.Option, error) {
	transport := remote.WithTransport(registry.PlainHTTPOnly(remote.DefaultTransport, plainHTTP...))
	if username == "" {
		if password != "" {
			return nil, errors.New("a registry password needs a username")
		}
		return []remote.Option{transport}, nil
	}
	if password == "" {
		return nil, errors.New("a registry username needs a password")
	}
	return []remote.Option{remote.WithAuth(basic{username, password}), transport}, nil
}

// basic is authn.Basic without its String method, which would print the
// password if the authenticator were ever formatted.
type basic struct{ user, pass string }

func (b basic) Authorization() (*authn.AuthConfig, error) {
	return &authn.AuthConfig{Username: b.user, Password: b.pass}, nil
}

func (b basic) String() string { return "[registry credentials]" }
