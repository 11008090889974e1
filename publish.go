package main

// The image supply chain's functions: publish-dev, its steps one by one (push-by-digest,
// scan-digests, attest, sign, tag-images), the weekly scan-published and verify. Glue only:
// the steps live in pipelines/publish.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/dagger"
	"dagger/shipyard/internal/registry"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/publish"
)

// supplychainSource is the supplychain command's source: this module's own folder, so the
// signing tool is always the one this version of Shipyard was tested with. Tests point it
// at the repository's folder on disk.
var supplychainSource = func(ctx context.Context, c *sdk.Client) (*sdk.Directory, error) {
	id, err := dag.CurrentModule().Source().Directory("supplychain").ID(ctx)
	if err != nil {
		return nil, fmt.Errorf("the module's supplychain folder: %w", err)
	}
	return c.LoadDirectoryFromID(sdk.DirectoryID(id)), nil
}

// target is where the constructor says images go, with the registry password read into
// memory for the registry calls made here and kept as a secret for the containers.
func (m *Shipyard) target(ctx context.Context, c *sdk.Client) (publish.Target, error) {
	password, err := toSDKSecret(ctx, c, m.RegistryPassword)
	if err != nil {
		return publish.Target{}, fmt.Errorf("--registry-password: %w", err)
	}
	plain, err := plaintext(ctx, m.RegistryPassword)
	if err != nil {
		return publish.Target{}, fmt.Errorf("--registry-password: %w", err)
	}
	return publish.Target{
		Registry: m.Registry, Org: m.Org, Username: m.RegistryUsername, Password: password,
		Auth: registry.Auth{Username: m.RegistryUsername, Password: plain},
	}, nil
}

// signInputs gathers what attest and sign need: the tool, the token, Sigstore's URLs, the
// trusted root (default: the public-good one, pinned) that an earlier run's bundle and the
// new evidence must verify against, and the provenance.
func (m *Shipyard) signInputs(ctx context.Context, c *sdk.Client, tokens signingTokens, fulcioURL, rekorURL string,
	trustedRoot *dagger.File, prov publish.Provenance) (publish.SignInputs, error) {
	src, err := supplychainSource(ctx, c)
	if err != nil {
		return publish.SignInputs{}, err
	}
	pins, err := m.pins()
	if err != nil {
		return publish.SignInputs{}, err
	}
	in := publish.SignInputs{Tool: publish.Tool(c, src, pins.Go), FulcioURL: fulcioURL, RekorURL: rekorURL,
		TrustedRoot: publish.PublicGoodTrustedRoot(c), Provenance: prov}
	if tokens.oidcToken != nil {
		if in.OIDCToken, err = toSDKSecret(ctx, c, tokens.oidcToken); err != nil {
			return publish.SignInputs{}, fmt.Errorf("--oidc-token: %w", err)
		}
	}
	if tokens.requestURL != nil || tokens.requestToken != nil {
		in.TokenRequest = &publish.TokenRequest{}
		if in.TokenRequest.URL, err = toSDKSecret(ctx, c, tokens.requestURL); err != nil {
			return publish.SignInputs{}, fmt.Errorf("--actions-id-token-request-url: %w", err)
		}
		if in.TokenRequest.Token, err = toSDKSecret(ctx, c, tokens.requestToken); err != nil {
			return publish.SignInputs{}, fmt.Errorf("--actions-id-token-request-token: %w", err)
		}
	}
	if trustedRoot != nil {
		if in.TrustedRoot, err = toSDKFile(ctx, c, trustedRoot); err != nil {
			return publish.SignInputs{}, fmt.Errorf("--trusted-root: %w", err)
		}
	}
	return in, nil
}

// signingTokens is where the signing steps get their identity token: a token given as is
// (--oidc-token), or GitHub Actions' token endpoint, from which the signing tool requests
// its own token right before each use.
type signingTokens struct {
	oidcToken, requestURL, requestToken *dagger.Secret
}

// provenance describes a build of this repository at commit sha on ref.
func (m *Shipyard) provenance(sha, ref string, githubEnv []string, builderID, buildType, invocationID string) (publish.Provenance, error) {
	gh, err := publish.ParseGitHubEnv(githubEnv)
	if err != nil {
		return publish.Provenance{}, err
	}
	return publish.Provenance{
		SourceRepository: "https://github.com/" + m.Repo, SourceRef: ref, SourceCommit: sha,
		BuilderID: builderID, BuildType: buildType, InvocationID: invocationID, GitHub: gh,
	}, nil
}

// pushed reads the digests push-by-digest printed, for this source's images.
func (m *Shipyard) pushed(ctx context.Context, c *sdk.Client, digests, version string) ([]publish.Pushed, []ci.Image, publish.Target, error) {
	var byName map[string]string
	if err := json.Unmarshal([]byte(digests), &byName); err != nil {
		return nil, nil, publish.Target{}, fmt.Errorf(`--digests: want the JSON push-by-digest printed, e.g. {"filer": "sha256:…"}: %w`, err)
	}
	_, images, err := m.images(ctx, version)
	if err != nil {
		return nil, nil, publish.Target{}, err
	}
	t, err := m.target(ctx, c)
	if err != nil {
		return nil, nil, publish.Target{}, err
	}
	pushed, err := publish.FromDigests(byName, images, t)
	if err != nil {
		return nil, nil, publish.Target{}, fmt.Errorf("--digests: %w", err)
	}
	return pushed, images, t, nil
}

// PublishDev publishes the images of a commit pushed to dev: builds them, pushes them by
// digest (untagged), scans exactly those digests (failing on CRITICAL and HIGH findings that
// have a fix, except those accepted in .trivyignore.yaml), attests their SLSA build
// provenance and signs them with Sigstore, and only then tags them dev and sha-<commit>.
// Any failure stops before a tag is written; a re-run finishes the job and changes nothing
// that is done. Images go to <registry>/<org>/tesk-core-<name> of the constructor (a fork
// sets --org, like DOCKERHUB_ORG). Prints what was published, as JSON.
// +cache="never"
func (m *Shipyard) PublishDev(
	ctx context.Context,
	// The full commit SHA pushed to dev, e.g. ${{ github.sha }}.
	sha string,
	// The OIDC identity token Sigstore certifies, e.g. env://SIGSTORE_ID_TOKEN (in GitHub
	// Actions, one requested with audience sigstore; the job needs id-token: write).
	// +optional
	oidcToken *dagger.Secret,
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
) (string, error) {
	c, err := sdkClient(ctx)
	if err != nil {
		return "", err
	}
	prov, err := m.provenance(sha, "refs/heads/dev", githubEnv, builderId, buildType, invocationId)
	if err != nil {
		return "", err
	}
	in, err := m.signInputs(ctx, c, signingTokens{oidcToken: oidcToken}, fulcioUrl, rekorUrl, trustedRoot, prov)
	if err != nil {
		return "", err
	}
	p, images, err := m.images(ctx, "")
	if err != nil {
		return "", err
	}
	t, err := m.target(ctx, c)
	if err != nil {
		return "", err
	}
	ignore, err := p.IgnoreFileContent(ctx)
	if err != nil {
		return "", err
	}
	workdir, err := os.MkdirTemp("", "shipyard-push-")
	if err != nil {
		return "", fmt.Errorf("publish-dev: %w", err)
	}
	defer os.RemoveAll(workdir)
	res, err := publish.PublishDev(ctx, publish.Dev{Pipeline: p, Images: images, Target: t, Sign: in, Ignore: ignore, Workdir: workdir}, sha)
	if err != nil {
		return "", err
	}
	return toJSON(res)
}

// PushByDigest builds the images and pushes each to <registry>/<org>/tesk-core-<name> by
// digest, without creating or moving any tag. Prints the digests as JSON for the next job,
// e.g. {"filer": "sha256:…", "taskmaster": "sha256:…"}. Pushing what the registry already
// has writes nothing.
// +cache="never"
func (m *Shipyard) PushByDigest(
	ctx context.Context,
	// The package version without v (e.g. 0.11.0); default: from Git history, else 0.0.0.dev0.
	// +optional
	version string,
) (string, error) {
	c, err := sdkClient(ctx)
	if err != nil {
		return "", err
	}
	_, images, err := m.images(ctx, version)
	if err != nil {
		return "", err
	}
	t, err := m.target(ctx, c)
	if err != nil {
		return "", err
	}
	workdir, err := os.MkdirTemp("", "shipyard-push-")
	if err != nil {
		return "", fmt.Errorf("push-by-digest: %w", err)
	}
	defer os.RemoveAll(workdir)
	pushed, err := publish.PushByDigest(ctx, images, t, workdir)
	if err != nil {
		return "", err
	}
	return toJSON(publish.Digests(pushed))
}

// ScanDigests scans exactly the given digests with Trivy, with no credential of any kind:
// fails on CRITICAL and HIGH vulnerabilities that have a fix, except those accepted in
// .trivyignore.yaml. Returns the JSON and SARIF reports and a summary.
// +cache="never"
func (m *Shipyard) ScanDigests(
	ctx context.Context,
	// Images by digest, <registry>/<org>/<name>@sha256:… (repeatable).
	// +optional
	ref []string,
	// Or the JSON push-by-digest printed, {"filer": "sha256:…", …}, for the images of
	// --registry and --org.
	// +optional
	digests string,
) (*dagger.Directory, error) {
	p, err := m.pipeline(ctx, nil)
	if err != nil {
		return nil, err
	}
	if (len(ref) == 0) == (digests == "") {
		return nil, fmt.Errorf("scan-digests: give either --ref (repeatable) or --digests")
	}
	var pushed []publish.Pushed
	if digests != "" {
		c, err := sdkClient(ctx)
		if err != nil {
			return nil, err
		}
		if pushed, _, _, err = m.pushed(ctx, c, digests, ""); err != nil {
			return nil, err
		}
	}
	for _, r := range ref {
		x, err := publish.ParseRef(r, p.ImagePrefix)
		if err != nil {
			return nil, fmt.Errorf("--ref: %w", err)
		}
		pushed = append(pushed, x)
	}
	ignore, err := p.IgnoreFileContent(ctx)
	if err != nil {
		return nil, err
	}
	dir, _, err := publish.ScanDigests(ctx, p, pushed, ignore)
	if err != nil {
		return nil, err
	}
	return fromSDKDirectory(ctx, dir)
}

// Attest signs SLSA v1 build provenance for each pushed digest (the source and commit, the
// Dockerfile and build arguments, the GitHub workflow as builder) with Sigstore and
// attaches it to the digest as an OCI referrer, where cosign verify-attestation and gh
// attestation verify find it. A digest that already has its provenance keeps it. Prints
// what was attached, as JSON.
// +cache="never"
func (m *Shipyard) Attest(
	ctx context.Context,
	// The digests push-by-digest printed, as JSON.
	digests string,
	// The full commit SHA the images were built from.
	sha string,
	// The git ref built, e.g. refs/heads/dev or refs/tags/v0.11.0.
	// +default="refs/heads/dev"
	ref string,
	// The package version the images were built with, as given to push-by-digest.
	// +optional
	version string,
	// The OIDC identity token, e.g. env://SIGSTORE_ID_TOKEN.
	// +optional
	oidcToken *dagger.Secret,
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
	// The GitHub Actions run, as NAME=value (see publish-dev).
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
) (string, error) {
	c, err := sdkClient(ctx)
	if err != nil {
		return "", err
	}
	pushed, images, t, err := m.pushed(ctx, c, digests, version)
	if err != nil {
		return "", err
	}
	prov, err := m.provenance(sha, ref, githubEnv, builderId, buildType, invocationId)
	if err != nil {
		return "", err
	}
	src, err := toSDKDirectory(ctx, c, m.Source)
	if err != nil {
		return "", fmt.Errorf("source: %w", err)
	}
	if prov.BaseImages, err = publish.ReadBaseImages(ctx, src, images); err != nil {
		return "", err
	}
	in, err := m.signInputs(ctx, c, signingTokens{oidcToken: oidcToken}, fulcioUrl, rekorUrl, trustedRoot, prov)
	if err != nil {
		return "", err
	}
	ev, err := publish.Attest(ctx, in, t, pushed, images)
	if err != nil {
		return "", err
	}
	return toJSON(ev)
}

// Sign signs each pushed digest with Sigstore, keylessly, as cosign v2.6 does with
// --new-bundle-format, and attaches the bundle to the digest as an OCI referrer, where
// cosign verify finds it. A digest that is already signed keeps its signature. Prints what
// was attached, as JSON.
// +cache="never"
func (m *Shipyard) Sign(
	ctx context.Context,
	// The digests push-by-digest printed, as JSON.
	digests string,
	// The OIDC identity token, e.g. env://SIGSTORE_ID_TOKEN.
	// +optional
	oidcToken *dagger.Secret,
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
) (string, error) {
	c, err := sdkClient(ctx)
	if err != nil {
		return "", err
	}
	pushed, _, t, err := m.pushed(ctx, c, digests, "")
	if err != nil {
		return "", err
	}
	in, err := m.signInputs(ctx, c, signingTokens{oidcToken: oidcToken}, fulcioUrl, rekorUrl, trustedRoot, publish.Provenance{})
	if err != nil {
		return "", err
	}
	ev, err := publish.Sign(ctx, in, t, pushed)
	if err != nil {
		return "", err
	}
	return toJSON(ev)
}

// TagImages points tags at the pushed digests, after they were scanned, attested and
// signed. It plans every tag of every image first: a version (0.11.0) or commit tag
// (sha-<commit>) already on another digest is refused, naming both digests, and then no tag
// of any image is written. dev moves; latest is the release's to set. A tag already on its
// digest is kept. Prints what was written and kept, as JSON.
// +cache="never"
func (m *Shipyard) TagImages(
	ctx context.Context,
	// The digests push-by-digest printed, as JSON.
	digests string,
	// The tags to set (repeatable), e.g. sha-<commit> and dev.
	tag []string,
) (string, error) {
	c, err := sdkClient(ctx)
	if err != nil {
		return "", err
	}
	pushed, _, t, err := m.pushed(ctx, c, digests, "")
	if err != nil {
		return "", err
	}
	for _, x := range tag {
		if x == registry.TagLatest {
			return "", fmt.Errorf("--tag latest: latest follows the highest release and is set by the release flow, which rechecks it right before writing")
		}
	}
	reports, err := publish.TagImages(ctx, t, pushed, tag, nil)
	if err != nil {
		return "", err
	}
	return toJSON(reports)
}

// ScanPublished is the weekly scan of published images: resolves each tag to its digest
// (anonymously, as users pull), scans that digest with Trivy under the CI policy, and
// returns every report: <image>-<tag>.sarif for code scanning, <image>-<tag>.json (the full
// report), summary.txt and targets.json (the digest of each tag). With --fail, CRITICAL and
// HIGH findings that have a fix fail the call; without it they are only reported.
// +cache="never"
func (m *Shipyard) ScanPublished(
	ctx context.Context,
	// Published images, <registry>/<org>/<name>:<tag> (repeatable), e.g.
	// docker.io/elixircloud/tesk-core-filer:latest.
	ref []string,
	// Fail on findings the policy blocks (otherwise report only).
	// +optional
	fail bool,
) (*dagger.Directory, error) {
	p, err := m.pipeline(ctx, nil)
	if err != nil {
		return nil, err
	}
	ignore, err := p.IgnoreFileContent(ctx)
	if err != nil {
		return nil, err
	}
	dir, _, err := publish.ScanPublished(ctx, p, ref, ignore, fail)
	if err != nil {
		return nil, err
	}
	return fromSDKDirectory(ctx, dir)
}

// Verify checks, before deploying, that an image has a valid Sigstore signature and SLSA
// build provenance from the given identity and issuer (e.g. tesk-core's release workflow and
// GitHub's OIDC issuer), against Sigstore's public-good trusted root (pinned by digest) or
// --trusted-root. A tag is resolved to its digest first. Prints what was verified.
// +cache="never"
func (m *Shipyard) Verify(
	ctx context.Context,
	// The image, by tag or digest, e.g. docker.io/elixircloud/tesk-core-filer:0.11.0.
	image string,
	// A regular expression the signer's certificate identity must match, anchored as ^…$,
	// e.g. ^https://github\.com/elixir-cloud-aai/tesk-core/\.github/workflows/release\.yml@refs/tags/v[0-9][0-9A-Za-z.+-]*$
	identity string,
	// The OIDC issuer the signer's certificate must name.
	// +default="https://token.actions.githubusercontent.com"
	issuer string,
	// A Sigstore trusted_root.json; default: the public-good instance's.
	// +optional
	trustedRoot *dagger.File,
	// Certificate transparency timestamps the certificate must carry: 1 for the public-good
	// instance, 0 for an instance without a CT log.
	// +default=1
	minScts int,
	// Output format: text or json.
	// +default="text"
	format string,
) (string, error) {
	if format != "text" && format != "json" {
		return "", fmt.Errorf("--format %q: want text or json", format)
	}
	c, err := sdkClient(ctx)
	if err != nil {
		return "", err
	}
	src, err := supplychainSource(ctx, c)
	if err != nil {
		return "", err
	}
	root := publish.PublicGoodTrustedRoot(c)
	if trustedRoot != nil {
		if root, err = toSDKFile(ctx, c, trustedRoot); err != nil {
			return "", fmt.Errorf("--trusted-root: %w", err)
		}
	}
	opts := []publish.VerifyOption{publish.WithMinSCTs(minScts)}
	if m.RegistryPassword != nil {
		t, err := m.target(ctx, c)
		if err != nil {
			return "", err
		}
		opts = append(opts, publish.WithRegistryLogin(t))
	}
	pins, err := m.pins()
	if err != nil {
		return "", err
	}
	v, err := publish.Verify(ctx, publish.Tool(c, src, pins.Go), strings.TrimSpace(image), identity, issuer, root, opts...)
	if err != nil {
		return "", err
	}
	if format == "json" {
		return toJSON(v)
	}
	return v.Text(), nil
}
