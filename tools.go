package main

import (
	"context"
	"fmt"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/pipelines/publish"
)

// The tools a call runs in containers (the signing tool, the registry and GitHub commands),
// built with its trust level's caches, and the signing inputs they take.

// tool is the signing tool, built with the Go caches of this call's trust level and pins.
func (m *Shipyard) tool(ctx context.Context) (*sdk.Container, error) {
	d, err := functions.Of(m.fn)
	if err != nil {
		return nil, err
	}
	if !d.Signs {
		return nil, fmt.Errorf("%s runs the signing tool but is not declared to sign: add +signs to its doc comment (internal/functions)", m.fn)
	}
	return m.builtCommand(ctx, m.supplychainSource, publish.BuildTool)
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
	return m.builtCommand(ctx, m.supplychainSource, publish.BuildRegistryTool)
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
