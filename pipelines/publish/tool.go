package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"dagger/shipyard/internal/wire"

	"dagger.io/dagger"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/gobuild"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/plainhttp"
	"dagger/shipyard/internal/trust"
)

// DefaultGoImage builds the supplychain command (the Go pin of the CI pins).
const DefaultGoImage = pins.DefaultGoImage

// Where the tool container finds its inputs. Secrets are files, never arguments or
// variables, so they appear in no process listing and no recorded command.
const (
	toolBinary      = "/usr/local/bin/supplychain"
	oidcTokenPath   = "/run/secrets/oidc-token"
	tokenURLPath    = "/run/secrets/actions-id-token-request-url"
	tokenBearerPath = "/run/secrets/actions-id-token-request-token"
	trustedRootPath = "/run/shipyard/trusted_root.json"
)

// BuildTool returns a container with the supplychain command (signing) at
// /usr/local/bin/supplychain and the registry command at /usr/local/bin/registry, both
// built in one go build from their source (the supplychain folder of this repository, its
// own Go module) in p's Go image (DefaultGoImage when empty): a function that signs also
// pushes, tags or reads the registry, and one build compiles go-containerregistry once for
// both (cold, about the signing command's build alone). Dagger caches the build, so only
// the functions that sign or verify build it, once; they use it as their RegistryTool too.
func BuildTool(client *dagger.Client, supplychainSrc *dagger.Directory, p pins.Pins, level trust.Level) *dagger.Container {
	out := goBuild(client, supplychainSrc, p, level, "supplychain", "registry")
	return binaryContainer(client, p).
		WithFile(toolBinary, out.File("supplychain"), dagger.ContainerWithFileOpts{Permissions: 0o755}).
		WithFile(registryBinary, out.File("registry"), dagger.ContainerWithFileOpts{Permissions: 0o755})
}

// BuildRegistryTool returns a container with the registry command alone at
// /usr/local/bin/registry, built like BuildTool with the same caches: a function that only
// pushes, tags or reads the registry does not compile sigstore-go.
func BuildRegistryTool(client *dagger.Client, supplychainSrc *dagger.Directory, p pins.Pins, level trust.Level) *dagger.Container {
	out := goBuild(client, supplychainSrc, p, level, "registry")
	return binaryContainer(client, p).
		WithFile(registryBinary, out.File("registry"), dagger.ContainerWithFileOpts{Permissions: 0o755})
}

func goImageOf(p pins.Pins) string {
	if p.Go == "" {
		return DefaultGoImage
	}
	return p.Go
}

// goBuild builds ./cmd/<name> of the supplychain module for each name into /out, in p's
// Go image, with the Go module and build caches of level's class and that image: shared
// by both commands' builds and by every call of that class, whatever its scope, so the
// engine compiles sigstore-go once and not once per registry or GitHub a release writes
// to. Test files and docs are left out of the build input so that changing them rebuilds
// nothing.
func goBuild(client *dagger.Client, supplychainSrc *dagger.Directory, p pins.Pins, level trust.Level, names ...string) *dagger.Directory {
	src := supplychainSrc.Filter(dagger.DirectoryFilterOpts{Exclude: []string{"**/*_test.go", "**/*.md", "**/testdata/"}})
	pkgs := make([]string, len(names))
	for i, n := range names {
		pkgs[i] = "./cmd/" + n
	}
	return gobuild.Build(client, src, goImageOf(p), level, pkgs...)
}

// binaryContainer is a fresh container of p's Go image, for the built commands.
func binaryContainer(client *dagger.Client, p pins.Pins) *dagger.Container {
	return gobuild.Runner(client, goImageOf(p))
}

// SignInputs is what attest and sign need besides the target.
type SignInputs struct {
	// Tool is the container from Tool.
	Tool *dagger.Container
	// OIDCToken is the identity token Fulcio certifies (in GitHub Actions, one requested
	// with audience sigstore). It lives a few minutes, so it suits a laptop or a step that
	// runs right after fetching it; TokenRequest is the alternative. One of them is required.
	OIDCToken *dagger.Secret
	// TokenRequest lets each attest and sign exec request its own token from GitHub's
	// endpoint right before it signs, however long the builds before it took.
	TokenRequest *TokenRequest
	// FulcioURL and RekorURL default to Sigstore's public-good instances when empty.
	FulcioURL, RekorURL string
	// TrustedRoot is Sigstore's trusted_root.json (the public
	// instance's, or another). Required: a bundle an earlier run attached counts as done only if it
	// verifies against it as signed by the token's identity, and the verify-signed step checks the
	// new evidence against it before any tag moves.
	TrustedRoot *dagger.File
	// Provenance describes the build, for Attest.
	Provenance Provenance
}

// TokenRequest is GitHub Actions' identity token endpoint, both parts secrets: the job's
// ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN (present when the job has
// permissions id-token: write).
type TokenRequest struct {
	URL, Token *dagger.Secret
}

// Evidence is a Sigstore bundle attached to an image digest as an OCI referrer.
type Evidence struct {
	Name   string `json:"name"`
	Digest string `json:"digest"`
	// Kind is attestation (SLSA build provenance), sbom (CycloneDX SBOM) or signature.
	Kind string `json:"kind"`
	// Referrer is the digest of the referrer manifest holding the bundle.
	Referrer string `json:"referrer"`
	LogIndex int64  `json:"logIndex"`
	// Created is false when an earlier run's bundle was found and kept.
	Created  bool   `json:"created"`
	Identity string `json:"identity,omitempty"`
	Issuer   string `json:"issuer,omitempty"`
}

// Evidence kinds.
const (
	KindAttestation = "attestation"
	KindSignature   = "signature"
)

// Predicate types the command writes, checked against its output.
const (
	slsaPredicateType   = "https://slsa.dev/provenance/v1"
	cosignPredicateType = "https://sigstore.dev/cosign/sign/v1"
)

// ErrNoIdentityToken is a signing step given no OIDC identity token, nor a way to get one.
var ErrNoIdentityToken = errors.New("no OIDC token: attesting and signing need an OIDC identity token")

// NoIdentityToken is ErrNoIdentityToken with the ways to give one.
func NoIdentityToken() error {
	return InputErrorf("%w: in GitHub Actions give %s (e.g. env://ACTIONS_ID_TOKEN_REQUEST_URL) and %s "+
		"(env://ACTIONS_ID_TOKEN_REQUEST_TOKEN; the job needs permissions id-token: write), elsewhere %s",
		ErrNoIdentityToken, InputTokenRequestURL, InputTokenRequest, InputIdentityToken)
}

// Check checks the signing inputs, once, before anything is built or pushed: a flow that
// signs checks them with its target (CheckInputs), and a caller that signs later (the
// release, whose provenance waits for its plan) checks them when it gathers them.
func (in SignInputs) Check() error {
	switch {
	case in.Tool == nil:
		return errors.New("no supplychain tool container")
	case in.OIDCToken != nil && in.TokenRequest != nil:
		return InputErrorf("give either %s or %s and %s, not both", InputIdentityToken, InputTokenRequestURL, InputTokenRequest)
	case in.TokenRequest != nil && (in.TokenRequest.URL == nil || in.TokenRequest.Token == nil):
		return InputErrorf("%s and %s go together", InputTokenRequestURL, InputTokenRequest)
	case in.OIDCToken == nil && in.TokenRequest == nil:
		return NoIdentityToken()
	case in.TrustedRoot == nil:
		return InputErrorf("no Sigstore trusted root: give the public instance's, or %s", InputTrustedRoot)
	}
	for _, url := range []struct {
		input Input
		value string
	}{{InputFulcioURL, in.FulcioURL}, {InputRekorURL, in.RekorURL}} {
		if host, plain := plainHTTPHost(url.value); plain && !plainhttp.Allowed(host) {
			// The identity token goes to Fulcio: whoever reads it signs as its identity.
			return InputErrorf("%s %s: plain HTTP goes only to a loopback address or the Dagger engine's gateway, where it cannot leave the machine; give an https URL", url.input, url.value)
		}
	}
	return nil
}

// plainHTTPHost is the host of an http:// URL, and whether u is one.
func plainHTTPHost(u string) (string, bool) {
	parsed, err := url.Parse(u)
	if err != nil || parsed.Scheme != "http" {
		return "", false
	}
	return parsed.Hostname(), true
}

// plainHTTPArgs are the supplychain command's --plain-http flags: each host among hosts
// (registry hosts, and those of http:// Sigstore URLs) where plain HTTP cannot leave the
// machine, once. The command sends plain HTTP nowhere else.
func plainHTTPArgs(hosts ...string) []string {
	var args []string
	seen := map[string]bool{}
	for _, h := range hosts {
		if h != "" && !seen[h] && plainhttp.Allowed(h) {
			seen[h] = true
			args = append(args, "--plain-http", h)
		}
	}
	return args
}

// signArgs are the flags attest and sign share; the secrets are mounted by publishStep.
func (in SignInputs) signArgs(t Target, img Pushed) []string {
	fulcio, _ := plainHTTPHost(in.FulcioURL)
	rekor, _ := plainHTTPHost(in.RekorURL)
	args := append([]string{"--image", img.Ref()}, plainHTTPArgs(registryHostOf(img.Ref()), fulcio, rekor)...)
	if in.TokenRequest != nil {
		args = append(args, "--oidc-token-request-url-file", tokenURLPath, "--oidc-token-request-token-file", tokenBearerPath)
	} else {
		args = append(args, "--oidc-token-file", oidcTokenPath)
	}
	if t.Password != nil {
		args = append(args, "--registry-username", t.Username, "--registry-password-file", registryPassPath)
	}
	if in.FulcioURL != "" {
		args = append(args, "--fulcio-url", in.FulcioURL)
	}
	if in.RekorURL != "" {
		args = append(args, "--rekor-url", in.RekorURL)
	}
	return append(args, "--trusted-root", trustedRootPath)
}

// checkPublished confirms each digest is in the registry before anything is signed: the
// command would otherwise sign, and write a transparency log entry, before it finds that
// it cannot attach the bundle.
func checkPublished(ctx context.Context, t Target, pushed []Pushed) error {
	refs := make([]string, len(pushed))
	for i, p := range pushed {
		refs[i] = p.Ref()
	}
	if _, err := t.resolveRefs(ctx, refs, false); err != nil {
		// One call reads them all; the message names the reference that failed.
		name := names(pushed)
		for _, p := range pushed {
			if strings.Contains(err.Error(), p.Ref()) {
				name = p.Name
			}
		}
		return fmt.Errorf("%s: the digest is not in the registry (push it first): %w", name, err)
	}
	return nil
}

// publishStep runs `supplychain <cmd>` (attest or sign) for one image with the token and
// the registry password as secret files, and reads its JSON outcome.
func (in SignInputs) publishStep(ctx context.Context, cmd, kind, predicateType string, t Target, img Pushed, extra []string) (Evidence, error) {
	ctr := in.Tool
	if in.TokenRequest != nil {
		ctr = ctr.WithMountedSecret(tokenURLPath, in.TokenRequest.URL).WithMountedSecret(tokenBearerPath, in.TokenRequest.Token)
	} else {
		ctr = ctr.WithMountedSecret(oidcTokenPath, in.OIDCToken)
	}
	if t.Password != nil {
		ctr = ctr.WithMountedSecret(registryPassPath, t.Password)
	}
	ctr = ctr.WithMountedFile(trustedRootPath, in.TrustedRoot)
	args := append(append([]string{"supplychain", cmd}, in.signArgs(t, img)...), extra...)
	stdout, err := runTool(ctx, ctr, args)
	if err != nil {
		return Evidence{}, fmt.Errorf("%s (%s): %w", img.Name, img.Ref(), err)
	}
	var o wire.Outcome
	if err := json.Unmarshal([]byte(stdout), &o); err != nil {
		return Evidence{}, fmt.Errorf("%s: reading supplychain %s's output: %w", img.Name, cmd, err)
	}
	// Fail closed: evidence for another digest or of another kind is no evidence.
	if o.Digest != img.Digest || o.PredicateType != predicateType || o.Referrer == "" {
		return Evidence{}, fmt.Errorf("%s: supplychain %s reported %s for %s (referrer %q), want %s for %s",
			img.Name, cmd, o.PredicateType, o.Digest, o.Referrer, predicateType, img.Digest)
	}
	return Evidence{Name: img.Name, Digest: o.Digest, Kind: kind, Referrer: o.Referrer, LogIndex: o.LogIndex,
		Created: o.Created, Identity: o.Identity, Issuer: o.Issuer}, nil
}

// runTool runs one supplychain command and returns its stdout; on failure, the command's
// own message (which never holds a secret: it redacts them) is the error. attest, sign and
// verify read and write the registry and Sigstore, whose state is outside the graph, so a
// random value in the exec's environment keeps the engine from answering a re-run from
// its cache (a gate told "verified" after the referrers were deleted); the tool's build
// stays cached.
func runTool(ctx context.Context, ctr *dagger.Container, args []string) (string, error) {
	return gobuild.Run(ctx, ctr, "SHIPYARD_SUPPLYCHAIN_RUN", args)
}

// runPerImage runs f for every image concurrently and keeps the order of pushed.
func runPerImage(ctx context.Context, pushed []Pushed, f func(i int, p Pushed) (Evidence, error)) ([]Evidence, error) {
	out := make([]Evidence, len(pushed))
	err := fanout.Each(ctx, 0, len(pushed), func(ctx context.Context, i int) error {
		e, err := f(i, pushed[i])
		out[i] = e
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CycloneDXPredicateType is the in-toto predicate type of the SBOM attestation: the URI
// `cosign verify-attestation --type cyclonedx` requires of the statement.
const CycloneDXPredicateType = "https://cyclonedx.org/bom"
