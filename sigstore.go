package main

// with-sigstore, and what the signing functions (publish-dev, attest, sign, release,
// release-publish) make of its settings. Glue only: the steps live in pipelines/publish.

import (
	"context"
	"fmt"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/dagger"
	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/pipelines/publish"
)

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

// signInputs gathers what attest and sign need: the tool, the token, Sigstore's URLs, the
// trusted root (default: the public-good one, pinned) that an earlier run's bundle and the
// new evidence must verify against, and prov, the provenance.
func (m *Shipyard) signInputs(ctx context.Context, prov publish.Provenance) (publish.SignInputs, error) {
	c, err := m.session(ctx)
	if err != nil {
		return publish.SignInputs{}, err
	}
	tool, err := m.tool(ctx)
	if err != nil {
		return publish.SignInputs{}, err
	}
	in := publish.SignInputs{Tool: tool, FulcioURL: m.FulcioURL, RekorURL: m.RekorURL,
		TrustedRoot: publish.PublicGoodTrustedRoot(c), Provenance: prov}
	if in.OIDCToken, err = toSDKSecret(ctx, c, m.OidcToken); err != nil {
		return publish.SignInputs{}, fmt.Errorf("--oidc-token: %w", err)
	}
	if m.ActionsIDTokenRequestURL != nil || m.ActionsIDTokenRequestToken != nil {
		in.TokenRequest = &publish.TokenRequest{}
		if in.TokenRequest.URL, err = toSDKSecret(ctx, c, m.ActionsIDTokenRequestURL); err != nil {
			return publish.SignInputs{}, fmt.Errorf("--actions-id-token-request-url: %w", err)
		}
		if in.TokenRequest.Token, err = toSDKSecret(ctx, c, m.ActionsIDTokenRequestToken); err != nil {
			return publish.SignInputs{}, fmt.Errorf("--actions-id-token-request-token: %w", err)
		}
	}
	if m.TrustedRoot != nil {
		if in.TrustedRoot, err = toSDKFile(ctx, c, m.TrustedRoot); err != nil {
			return publish.SignInputs{}, fmt.Errorf("--trusted-root: %w", err)
		}
	}
	return in, nil
}

// tool is the signing tool, built with the Go caches of this call's trust level and pins.
func (m *Shipyard) tool(ctx context.Context) (*sdk.Container, error) {
	d, err := functions.Of(m.fn)
	if err != nil {
		return nil, err
	}
	if !d.Signs {
		return nil, fmt.Errorf("%s runs the signing tool but is not declared to sign: add +signs to its doc comment (internal/functions)", m.fn)
	}
	return m.builtCommand(ctx, m.supplychainSource, publish.Tool)
}

// registryTool is the registry command, built as the signing tool is: in a function that
// signs (whose registry work runs the registry command of the same build, so one go build
// compiles both), the signing tool's container, which holds it too; elsewhere, alone, so a
// function that only pushes or tags does not compile sigstore-go.
func (m *Shipyard) registryTool(ctx context.Context) (*sdk.Container, error) {
	d, err := functions.Of(m.fn)
	if err != nil {
		return nil, err
	}
	if d.Signs {
		return m.tool(ctx)
	}
	return m.builtCommand(ctx, m.supplychainSource, publish.RegistryTool)
}

// builtCommand builds one of Shipyard's own commands with build, from the source source
// returns (the supplychain module's folder, or the module's own), with the Go caches of
// this call's trust level and pins.
func (m *Shipyard) builtCommand(ctx context.Context, source func(context.Context, *sdk.Client) (*sdk.Directory, error), build func(*sdk.Client, *sdk.Directory, pins.Pins, trust.Level) *sdk.Container) (*sdk.Container, error) {
	level, err := m.level(ctx)
	if err != nil {
		return nil, err
	}
	c, err := m.session(ctx)
	if err != nil {
		return nil, err
	}
	src, err := source(ctx, c)
	if err != nil {
		return nil, err
	}
	p, err := m.pins()
	if err != nil {
		return nil, err
	}
	return build(c, src, p, level), nil
}

// hasIdentityToken is whether with-sigstore gave a way to get an identity token.
func (m *Shipyard) hasIdentityToken() bool {
	return m.OidcToken != nil || m.ActionsIDTokenRequestURL != nil || m.ActionsIDTokenRequestToken != nil
}

// origin is what this call's provenance says of the source repository and the builder; a
// flow makes each build's provenance from it (publish.Origin.Provenance), a release once its
// plan names the tag and commit. In GitHub Actions the repository is the run's, which
// --repo must name.
func (m *Shipyard) origin() (publish.Origin, error) {
	gh, err := publish.ParseGitHubEnv(m.GithubEnv)
	if err != nil {
		return publish.Origin{}, err
	}
	web, err := m.githubWeb()
	if err != nil {
		return publish.Origin{}, err
	}
	repo, err := publish.SourceRepository(m.Repo, gh)
	if err != nil {
		return publish.Origin{}, err
	}
	return publish.Origin{
		SourceRepository: web + repo,
		BuilderID:        m.BuilderID, BuildType: m.BuildType, InvocationID: m.InvocationID, GitHub: gh,
	}, nil
}

// githubWeb is the web and git root of the GitHub instance --github-api names.
func (m *Shipyard) githubWeb() (string, error) {
	web, err := github.WebURL(m.GithubAPI)
	if err != nil {
		return "", fmt.Errorf("--github-api: %w", err)
	}
	return web, nil
}
