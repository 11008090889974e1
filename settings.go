package main

import (
	"dagger/shipyard/internal/buildplatform"
	"dagger/shipyard/internal/dagger"
)

// The settings functions (with-platforms, with-sigstore) return the module with their
// settings; the signing functions (publish-dev, attest, sign, release, release-publish)
// read with-sigstore's. Glue only: the steps live in pipelines/publish.

// WithSigstore sets, once for the signing functions chained after it (publish-dev, attest,
// sign, release, release-publish), where their identity token comes from, which Sigstore
// instance and trusted root they use, and which builder the provenance names, e.g.
// `dagger call … with-sigstore --actions-id-token-request-url env://ACTIONS_ID_TOKEN_REQUEST_URL
// --actions-id-token-request-token env://ACTIONS_ID_TOKEN_REQUEST_TOKEN --github-env … release-publish …`.
// +cacheReason="returns the module with the signing settings; touches nothing"
func (m *Shipyard) WithSigstore(
	// The OIDC identity token Sigstore certifies, e.g. env://SIGSTORE_ID_TOKEN (one with
	// audience sigstore). Suits a laptop with a fresh token; in GitHub Actions pass the
	// --actions-id-token-request-* pair instead, so each signing step gets a fresh token.
	// +optional
	oidcToken *dagger.Secret,
	// GitHub Actions' ACTIONS_ID_TOKEN_REQUEST_URL, e.g. env://ACTIONS_ID_TOKEN_REQUEST_URL:
	// with the next argument, the signing tool requests its own identity token (audience
	// sigstore) right before each attest and sign, instead of --oidc-token, which would
	// expire during the builds. The job needs permissions id-token: write.
	// +optional
	actionsIdTokenRequestUrl *dagger.Secret,
	// GitHub Actions' ACTIONS_ID_TOKEN_REQUEST_TOKEN, e.g. env://ACTIONS_ID_TOKEN_REQUEST_TOKEN.
	// +optional
	actionsIdTokenRequestToken *dagger.Secret,
	// Fulcio's URL; default: Sigstore's public-good instance.
	// +optional
	fulcioUrl string,
	// Rekor's URL (v1 API); default: Sigstore's public-good instance.
	// +optional
	rekorUrl string,
	// Sigstore's trusted_root.json: a bundle an earlier run left counts as done only if it
	// verifies against it as signed by the token's identity, and the new evidence is
	// verified against it before any tag moves; default: the public-good instance's,
	// pinned by digest.
	// +optional
	trustedRoot *dagger.File,
	// The GitHub Actions run, as NAME=value: GITHUB_SERVER_URL, GITHUB_REPOSITORY,
	// GITHUB_REPOSITORY_ID, GITHUB_REPOSITORY_OWNER_ID, GITHUB_WORKFLOW_REF, GITHUB_EVENT_NAME,
	// GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, RUNNER_ENVIRONMENT. Makes the workflow the builder.
	// +optional
	githubEnv []string,
	// The builder's id outside GitHub Actions (a URI).
	// +optional
	builderId string,
	// The provenance's buildType outside GitHub Actions (a URI).
	// +optional
	buildType string,
	// The run's id outside GitHub Actions.
	// +optional
	invocationId string,
) *Shipyard {
	c := *m
	c.OidcToken, c.ActionsIDTokenRequestURL, c.ActionsIDTokenRequestToken = oidcToken, actionsIdTokenRequestUrl, actionsIdTokenRequestToken
	c.FulcioURL, c.RekorURL, c.TrustedRoot = fulcioUrl, rekorUrl, trustedRoot
	c.GithubEnv, c.BuilderID, c.BuildType, c.InvocationID = githubEnv, builderId, buildType, invocationId
	return &c
}

// WithPlatforms sets the platforms images are built for and published as one OCI image
// index by digest (default linux/amd64 and linux/arm64 for images, push-by-digest,
// publish-dev and the release): each platform's image is version-checked (release) and
// scanned, and provenance, SBOM and signature go on the index digest and on each platform
// image's. A platform other than the engine's runs under the engine's emulation. Chained
// before image, scan, scan-check, end-to-end or ci, which otherwise build for the engine's
// platform, it builds those functions' images for these platforms too.
// +cacheReason="returns the module with the platforms to build; touches nothing"
func (m *Shipyard) WithPlatforms(
	// A platform, os/arch[/variant] (repeatable).
	platform []string,
) (*Shipyard, error) {
	if _, err := buildplatform.Parse(platform); err != nil {
		return nil, err
	}
	c := *m
	c.Platforms = platform
	return &c, nil
}
