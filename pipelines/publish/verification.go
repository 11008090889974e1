package publish

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"

	"dagger/shipyard/internal/wire"

	"dagger.io/dagger"
)

// Sigstore's public-good trusted root (trusted_root.json), as the TUF repository serves
// it: content-addressed by its sha256, which the TUF targets metadata signs. Pinned here
// like an image, so the download is checked and cached by that digest; bump it when
// Sigstore rotates a key (or pass --trusted-root).
const (
	PublicGoodTrustedRootSHA256 = "6494e21ea73fa7ee769f85f57d5a3e6a08725eae1e38c755fc3517c9e6bc0b66"
	PublicGoodTrustedRootURL    = "https://tuf-repo-cdn.sigstore.dev/targets/" + PublicGoodTrustedRootSHA256 + ".trusted_root.json"
)

// PublicGoodTrustedRoot is Sigstore's public-good trusted root, fetched by its pinned digest.
func PublicGoodTrustedRoot(client *dagger.Client) *dagger.File {
	return client.HTTP(PublicGoodTrustedRootURL, dagger.HTTPOpts{Name: "trusted_root.json", Checksum: "sha256:" + PublicGoodTrustedRootSHA256})
}

// Verification is what Verify checked.
type Verification struct {
	// Image is the reference as given; Ref is the digest reference that was verified.
	Image    string     `json:"image"`
	Ref      string     `json:"ref"`
	Digest   string     `json:"digest"`
	Verified []Verified `json:"verified"`
	// Platform is the platform of a platform image verified as part of its index.
	Platform string `json:"platform,omitempty"`
	// Platforms are the platform images of an index, each verified by its own digest
	// (WithPlatforms).
	Platforms []Verification `json:"platforms,omitempty"`
	// bundles are the attestation bundles that verified, kept with withBundles for the
	// attestation store; never printed.
	bundles []json.RawMessage
}

// Verified is one bundle that verified, as supplychain verify prints it.
type Verified = wire.Verified

// Text renders the verification for a terminal.
func (v Verification) Text() string {
	var b strings.Builder
	image := v.Image
	if v.Platform != "" {
		image += " (" + v.Platform + ")"
	}
	fmt.Fprintf(&b, "verified %s\n  digest %s\n", image, v.Digest)
	for _, x := range v.Verified {
		what := x.PredicateType
		switch x.PredicateType {
		case cosignPredicateType:
			what = "signature"
		case slsaPredicateType:
			what = "SLSA build provenance"
		case CycloneDXPredicateType:
			what = "CycloneDX SBOM"
		}
		fmt.Fprintf(&b, "  %s by %s (issuer %s), Rekor log index %d, referrer %s\n", what, x.Identity, x.Issuer, x.LogIndex, x.Referrer)
	}
	for _, p := range v.Platforms {
		b.WriteString("  " + strings.ReplaceAll(strings.TrimRight(p.Text(), "\n"), "\n", "\n  ") + "\n")
	}
	return b.String()
}

// identityShape is the shape of a release workflow's identity on a release tag, for errors:
// a system's own (tesk-core's is in its docs) fills in its repository and workflow.
const identityShape = `^https://github\.com/<owner>/<repository>/\.github/workflows/<workflow>\.yml@refs/tags/v[0-9][0-9A-Za-z.+-]*$`

// Anchored reports whether an identity regexp matches whole identities only: ^ first and $
// last around everything, alternatives included. Unanchored, "github\.com/o/r/" would also
// accept https://github.com/attacker/x?github.com/o/r/, and "^a|b$" anything ending in b.
// The supplychain command applies the same rule.
func Anchored(re string) bool {
	parsed, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return false
	}
	parsed = parsed.Simplify()
	subs := parsed.Sub
	return parsed.Op == syntax.OpConcat && len(subs) >= 2 && subs[0].Op == syntax.OpBeginText && subs[len(subs)-1].Op == syntax.OpEndText
}

// VerifyOption adjusts Verify.
type VerifyOption func(*verifyConfig)

type verifyConfig struct {
	target      *Target
	minSCTs     int
	requireSBOM bool
	platforms   bool
	bundles     bool
}

// withBundles keeps the attestation bundles that verified (provenance, SBOM), for the step
// that stores them beside the registry's (Verification.bundles).
func withBundles() VerifyOption {
	return func(c *verifyConfig) { c.bundles = true }
}

// WithPlatforms also verifies, when the image is a multi-platform image's index, each
// platform image it lists, by its own digest: what a runtime on that platform pulls.
func WithPlatforms() VerifyOption {
	return func(c *verifyConfig) { c.platforms = true }
}

// WithRequiredSBOM also requires a CycloneDX SBOM attestation from the same signer, besides
// the signature and the provenance.
func WithRequiredSBOM() VerifyOption {
	return func(c *verifyConfig) { c.requireSBOM = true }
}

// WithRegistryLogin reads the image with t's login (a private registry), with t's
// registry command; without it, the image is read anonymously.
func WithRegistryLogin(t Target) VerifyOption {
	return func(c *verifyConfig) { c.target = &t }
}

// WithMinSCTs sets the certificate transparency timestamps the signing certificate must
// carry: 1 (the default) for Sigstore's public-good instance, 0 for an instance without a
// CT log.
func WithMinSCTs(n int) VerifyOption {
	return func(c *verifyConfig) { c.minSCTs = n }
}

// VerifyRequest is what verify checks: an image, by tag or digest, against a signer (a
// regexp over the certificate's identity, e.g. the release workflow, and its OIDC issuer)
// and a trusted root (PublicGoodTrustedRoot, or a file), with the supplychain tool and the
// registry command that reads the registry.
type VerifyRequest struct {
	Tool, RegistryTool      *dagger.Container
	Image, Identity, Issuer string
	TrustedRoot             *dagger.File
	Options                 []VerifyOption
}

func (r VerifyRequest) config() verifyConfig {
	cfg := verifyConfig{minSCTs: 1}
	for _, o := range r.Options {
		o(&cfg)
	}
	return cfg
}

// check refuses, before anything is read, a request that cannot verify anything or would
// accept a signer it should not.
func (r VerifyRequest) check() error {
	switch {
	case r.Tool == nil:
		return errors.New("no supplychain tool container")
	case r.TrustedRoot == nil:
		return errors.New("no trusted root given")
	case r.Identity == "" || r.Issuer == "":
		return InputErrorf("%s and %s are required", InputIdentity, InputIssuer)
	case r.config().minSCTs < 0:
		return InputErrorf("%s %d must not be negative", InputMinSCTs, r.config().minSCTs)
	}
	if _, err := regexp.Compile(r.Identity); err != nil {
		return InputErrorf("%s %q is not a regular expression: %w", InputIdentity, r.Identity, err)
	}
	if !Anchored(r.Identity) {
		return InputErrorf("%s %q is not anchored: write it as ^…$ so that it matches the whole identity, e.g. %s", InputIdentity, r.Identity, identityShape)
	}
	if _, _, err := splitRef(r.Image); err != nil {
		return err
	}
	return nil
}
