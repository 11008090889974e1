// Package verify checks that an image digest carries a valid Sigstore
// signature and SLSA build provenance from an expected identity, reading the
// bundles that are OCI referrers of the digest and verifying each with
// sigstore-go against a trusted root. It fails closed: a bundle that does
// not verify never counts, whatever its annotations say.
package verify

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"time"

	"dagger/shipyard/supplychain/wire"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	sgbundle "github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"

	"dagger/shipyard/supplychain/referrers"
)

// Predicate types this package requires.
const (
	CosignSignPredicateType = "https://sigstore.dev/cosign/sign/v1"
	SLSAPredicateType       = "https://slsa.dev/provenance/v1"
)

// ErrNotVerified is wrapped when the image lacks a verified signature or provenance.
var ErrNotVerified = errors.New("image not verified")

// Policy is what a verified image must satisfy.
type Policy struct {
	// IdentityRegexp must match the certificate's subject alternative name,
	// anchored at both ends (see Anchored), e.g.
	// ^https://github\.com/o/r/\.github/workflows/release\.yml@refs/tags/v[0-9][0-9A-Za-z.+-]*$.
	IdentityRegexp string
	// Issuer must equal the certificate's OIDC issuer, e.g.
	// https://token.actions.githubusercontent.com.
	Issuer string
	// RequiredPredicateTypes are the statements that must be present and
	// verified; empty means both the cosign signature and SLSA provenance.
	RequiredPredicateTypes []string
	// MinSCTs is the number of certificate transparency timestamps the
	// certificate must carry: 1 for Sigstore's public good, 0 for a private
	// instance without a CT log.
	MinSCTs int
}

func (p Policy) required() []string {
	if len(p.RequiredPredicateTypes) > 0 {
		return p.RequiredPredicateTypes
	}
	return []string{CosignSignPredicateType, SLSAPredicateType}
}

// Verified and Result are the wire's: what supplychain verify prints.
type Verified = wire.Verified

type Result = wire.VerifyResult

// LoadTrustedRoot reads a trusted_root.json file (the format of Sigstore's
// TUF target and of cosign's --trusted-root).
func LoadTrustedRoot(path string) (*root.TrustedRoot, error) {
	if path == "" {
		return nil, errors.New("verify: a trusted root file is required")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading trusted root: %w", err)
	}
	tr, err := root.NewTrustedRootFromJSON(b)
	if err != nil {
		return nil, fmt.Errorf("parsing trusted root: %w", err)
	}
	return tr, nil
}

// Image resolves ref to its digest, fetches the digest's bundle referrers and
// verifies them against p.
func Image(ctx context.Context, ref name.Reference, trusted root.TrustedMaterial, p Policy, opts ...remote.Option) (*Result, error) {
	d, err := Resolve(ctx, ref, opts...)
	if err != nil {
		return nil, err
	}
	refs, err := referrers.List(ctx, d, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	res, err := Bundles(d.DigestStr(), refs, trusted, p)
	if res != nil {
		res.Image = ref.String()
	}
	return res, err
}

// Resolve returns the digest reference of ref, asking the registry when ref is a tag.
func Resolve(ctx context.Context, ref name.Reference, opts ...remote.Option) (name.Digest, error) {
	if d, ok := ref.(name.Digest); ok {
		return d, nil
	}
	desc, err := remote.Head(ref, append(opts, remote.WithContext(ctx))...)
	if err != nil {
		return name.Digest{}, fmt.Errorf("resolving %s: %w", ref, err)
	}
	return ref.Context().Digest(desc.Digest.String()), nil
}

// Bundles verifies the bundle referrers of an image digest. It returns the
// verified bundles and an error wrapping ErrNotVerified unless each required
// predicate type has at least one verified bundle.
func Bundles(digest string, refs []referrers.Referrer, trusted root.TrustedMaterial, p Policy) (*Result, error) {
	if trusted == nil {
		return nil, errors.New("verify: a trusted root is required")
	}
	if p.Issuer == "" || p.IdentityRegexp == "" {
		return nil, errors.New("verify: an identity regexp and an issuer are required")
	}
	if _, err := regexp.Compile(p.IdentityRegexp); err != nil {
		return nil, fmt.Errorf("identity regexp: %w", err)
	}
	if err := Anchored(p.IdentityRegexp); err != nil {
		return nil, fmt.Errorf("identity regexp: %w", err)
	}
	alg, hexDigest, ok := strings.Cut(digest, ":")
	raw, err := hex.DecodeString(hexDigest)
	if !ok || alg != "sha256" || err != nil || len(raw) != 32 {
		return nil, fmt.Errorf("digest %q is not sha256:<64 hex>", digest)
	}
	identity, err := sgverify.NewShortCertificateIdentity(p.Issuer, "", "", p.IdentityRegexp)
	if err != nil {
		return nil, fmt.Errorf("identity policy: %w", err)
	}
	vopts := []sgverify.VerifierOption{sgverify.WithTransparencyLog(1), sgverify.WithIntegratedTimestamps(1)}
	if p.MinSCTs > 0 {
		vopts = append(vopts, sgverify.WithSignedCertificateTimestamps(p.MinSCTs))
	}
	verifier, err := sgverify.NewVerifier(trusted, vopts...)
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	policy := sgverify.NewPolicy(sgverify.WithArtifactDigest(alg, raw), sgverify.WithCertificateIdentity(identity))

	res := &Result{Digest: digest, Verified: []Verified{}}
	var failures []string
	for _, r := range refs {
		v, err := one(r, verifier, policy)
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", r.Digest, err))
			continue
		}
		res.Verified = append(res.Verified, v)
	}
	sort.SliceStable(res.Verified, func(i, j int) bool { return res.Verified[i].PredicateType < res.Verified[j].PredicateType })

	var missing []string
	for _, want := range p.required() {
		found := false
		for _, v := range res.Verified {
			found = found || v.PredicateType == want
		}
		if !found {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("%s: no verified bundle of predicate type %s from identity %q of issuer %q (%d referrer bundles",
			digest, strings.Join(missing, ", "), p.IdentityRegexp, p.Issuer, len(refs))
		if len(failures) > 0 {
			msg += "; rejected: " + strings.Join(failures, "; ")
		}
		return res, fmt.Errorf("%w: %s)", ErrNotVerified, msg)
	}
	return res, nil
}

// ErrUnanchored is wrapped when an identity regexp is not anchored at both ends.
var ErrUnanchored = errors.New("not anchored")

// Anchored checks that re matches whole identities only: it starts with ^ and ends with $
// around everything, alternatives included. An unanchored pattern such as
// "github.com/o/r/" also matches https://github.com/attacker/x?github.com/o/r/, and
// "^a|b$" accepts any identity that ends in b.
func Anchored(re string) error {
	parsed, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return err
	}
	parsed = parsed.Simplify()
	subs := parsed.Sub
	if parsed.Op != syntax.OpConcat || len(subs) < 2 || subs[0].Op != syntax.OpBeginText || subs[len(subs)-1].Op != syntax.OpEndText {
		return fmt.Errorf("%q is %w: write it as ^…$ so that it matches the whole identity, e.g. ^https://github\\.com/o/r/\\.github/workflows/release\\.yml@refs/tags/v[0-9][0-9A-Za-z.+-]*$", re, ErrUnanchored)
	}
	return nil
}

func one(r referrers.Referrer, verifier *sgverify.Verifier, policy sgverify.PolicyBuilder) (Verified, error) {
	var b sgbundle.Bundle
	if err := b.UnmarshalJSON(r.Bundle); err != nil {
		return Verified{}, fmt.Errorf("not a Sigstore bundle: %w", err)
	}
	if !b.MinVersion("v0.3") {
		return Verified{}, errors.New("bundle older than v0.3")
	}
	out, err := verifier.Verify(&b, policy)
	if err != nil {
		return Verified{}, err
	}
	if out.Statement == nil || out.Signature == nil || out.Signature.Certificate == nil {
		return Verified{}, errors.New("not a certificate-signed in-toto statement")
	}
	v := Verified{
		PredicateType: out.Statement.GetPredicateType(),
		Identity:      out.Signature.Certificate.SubjectAlternativeName,
		Issuer:        out.Signature.Certificate.Issuer,
		Referrer:      r.Digest,
		Bundle:        json.RawMessage(r.Bundle),
	}
	if entries, err := b.TlogEntries(); err == nil && len(entries) > 0 {
		v.LogIndex = entries[0].LogIndex()
	}
	for _, ts := range out.VerifiedTimestamps {
		if ts.Type == "Tlog" {
			v.IntegratedTime = ts.Timestamp.UTC().Format(time.RFC3339)
			break
		}
	}
	return v, nil
}
