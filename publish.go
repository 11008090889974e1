package main

// The image supply chain's functions: publish-dev, its steps one by one (push-by-digest,
// scan-digests, attest, sign, tag-images), the weekly scan-published and verify. Glue only:
// the steps live in pipelines/publish.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"dagger/shipyard/internal/buildplatform"
	"dagger/shipyard/internal/dagger"
	"dagger/shipyard/internal/output"
	"dagger/shipyard/pipelines/ci/artifact"
	"dagger/shipyard/pipelines/publish"
)

// PublishDev publishes the images of a commit pushed to dev: builds them, pushes them by
// digest (untagged), scans exactly those digests (failing on CRITICAL and HIGH findings that
// have a fix, except those accepted in .trivyignore.yaml), attests their SLSA build
// provenance and signs them with Sigstore, verifies them, with --github-token stores the
// verified provenance and SBOMs in --repo's attestation store on GitHub (the token needs
// attestations: write), and only then tags them dev and sha-<commit>. Any failure stops
// before a tag is written; a re-run finishes the job and changes nothing that is done.
// Images go to <registry>/<org>/tesk-core-<name> of the constructor (a fork sets --org,
// like DOCKERHUB_ORG); the identity token and the builder come from with-sigstore. Prints
// what was published, as JSON.
// +cache="never"
// +trust="publishing(registry-password, identity-token)"
// +signs
// +allPlatforms
// +cacheReason="writes to the registry and Sigstore"
func (m *Shipyard) PublishDev(
	ctx context.Context,
	// The full commit SHA pushed to dev, e.g. ${{ github.sha }}.
	sha string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		origin, err := m.origin()
		if err != nil {
			return "", err
		}
		in, err := m.signInputs(ctx, origin.Provenance(publish.BranchRef(artifact.Tags()), sha))
		if err != nil {
			return "", err
		}
		p, images, err := m.images(ctx, "")
		if err != nil {
			return "", err
		}
		t, err := m.target(ctx)
		if err != nil {
			return "", err
		}
		ignore, err := p.IgnoreFileContent(ctx)
		if err != nil {
			return "", err
		}
		branchOrder, err := m.branchOrder(ctx, t.Tags)
		if err != nil {
			return "", err
		}
		// With --github-token, the verified bundles go to --repo's attestation store too.
		var store publish.AttestationStore
		if m.GithubToken != nil {
			if store, err = m.attestationStore(ctx); err != nil {
				return "", err
			}
		}
		return printed(publish.PublishBranch(ctx, publish.BranchConfig{Flow: m.fn, Source: p.Source, Scanner: artifact.Scanner(p), Images: artifact.Of(images), Target: t, Signing: in, Ignore: ignore,
			BranchOrder: branchOrder, Store: store}, sha))
	})
}

// PushByDigest builds the images and pushes each to <registry>/<org>/tesk-core-<name> by
// digest, without creating or moving any tag. Prints each image's reference by digest as
// JSON for the next job, e.g. {"filer": "docker.io/elixircloud/tesk-core-filer@sha256:…"};
// with --image, only that image's.
// attest, sign, tag-images and scan-digests act on exactly the images the JSON names.
// Pushing what the registry already has writes nothing.
// +cache="never"
// +trust="publishing(registry-password)"
// +allPlatforms
// +cacheReason="writes to the registry"
func (m *Shipyard) PushByDigest(
	ctx context.Context,
	// The package version without v (e.g. 0.11.0); default: from Git history, else 0.0.0.dev0.
	// +optional
	version string,
	// Push only this image (taskmaster or filer), as the workflow's job per image does;
	// default: every image.
	// +optional
	image string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		p, images, err := m.images(ctx, version)
		if err != nil {
			return "", err
		}
		if images, err = namedImage(ctx, p, images, version, image); err != nil {
			return "", err
		}
		t, err := m.target(ctx)
		if err != nil {
			return "", err
		}
		pushed, err := publish.PushByDigest(ctx, m.fn, artifact.Of(images), t)
		if err != nil {
			return "", err
		}
		return toJSON(publish.Refs(pushed))
	})
}

// PushPlatformByDigest is push-by-digest for one platform, as a workflow runs it that
// builds each platform on a runner of that platform (linux/arm64 on an arm64 runner, so
// nothing is emulated): the images built for that platform only and pushed by digest,
// untagged, as single images. Prints the JSON assemble-index reads: the commit of the
// source (which must hold its Git history), the platform and each image's digest. On one
// machine, push-by-digest builds every platform at once.
// +cache="never"
// +trust="publishing(registry-password)"
// +allPlatforms
// +cacheReason="writes to the registry"
func (m *Shipyard) PushPlatformByDigest(
	ctx context.Context,
	// The platform this job builds, one of those the images are published for
	// (with-platforms; default linux/amd64 and linux/arm64), e.g. linux/arm64.
	platform string,
	// The package version without v (e.g. 0.11.0); default: from Git history.
	// +optional
	version string,
	// Push only this image (taskmaster or filer), as the workflow's job per image does;
	// default: every image.
	// +optional
	image string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		parsed, err := buildplatform.Parse([]string{platform})
		if err != nil {
			return "", fmt.Errorf("--platform: %w", err)
		}
		p, err := m.pipeline(ctx, nil)
		if err != nil {
			return "", err
		}
		// The pipeline builds for the platforms the images are published for; this job, for
		// one of them only.
		if err := publish.CheckPlatform(parsed[0], p.Platforms); err != nil {
			return "", err
		}
		p.Platforms = parsed
		_, images, err := imagesOf(ctx, p, version)
		if err != nil {
			return "", err
		}
		images, commit, t, err := m.commitImages(ctx, p, images, version, image)
		if err != nil {
			return "", err
		}
		pushed, err := publish.PushPlatform(ctx, artifact.Of(images), parsed[0], t)
		if err != nil {
			return "", err
		}
		return publish.PlatformHandoff{Commit: commit, Version: images[0].Version, PlatformPush: pushed}.JSON()
	})
}

// AssembleIndex is the job after the platform jobs (push-platform-by-digest): it checks
// that their outputs are of this source's commit and version, one per platform the images
// are published for, each with the images in their repositories and each image for the
// platform it is listed under, then pushes each image's index of those platform images by
// digest, untagged: the index push-by-digest pushes for the same images. Builds nothing.
// Prints what push-by-digest prints, e.g. {"filer": "<registry>/<org>/tesk-core-filer@sha256:…"}, for scan-digests,
// attest, sign and tag-images.
// +cache="never"
// +trust="publishing(registry-password)"
// +allPlatforms
// +cacheReason="reads and writes the registry"
func (m *Shipyard) AssembleIndex(
	ctx context.Context,
	// What the platform jobs printed, as one JSON array with one element per platform:
	// [<the linux/amd64 job's>,<the linux/arm64 job's>].
	pushed string,
	// The package version the platform jobs were given; default: from Git history.
	// +optional
	version string,
	// Assemble only this image (taskmaster or filer), as the workflow's job per image does;
	// default: every image.
	// +optional
	image string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		parts, err := publish.ParsePlatformOutputs(pushed, publish.ParsePlatformHandoff)
		if err != nil {
			return "", fmt.Errorf("--pushed: %w", err)
		}
		p, images, err := m.images(ctx, version)
		if err != nil {
			return "", err
		}
		images, commit, t, err := m.commitImages(ctx, p, images, version, image)
		if err != nil {
			return "", err
		}
		pushes, err := publish.CheckPlatformHandoffs(commit, images[0].Version, artifact.Of(images), t, parts)
		if err != nil {
			return "", fmt.Errorf("%s: %w (run the platform jobs of this commit, and pass their output on unchanged)", publish.StepAssemble, err)
		}
		platforms := make([]string, len(p.Platforms))
		for i, pl := range p.Platforms {
			platforms[i] = string(pl)
		}
		s := publish.ImageState{Target: t, Log: logToStderr}
		if err := publish.AssembleAlone(ctx, m.fn, &s, platforms, pushes); err != nil {
			return "", err
		}
		return toJSON(publish.Refs(s.Pushed))
	})
}

// ScanDigests scans exactly the given digests with Trivy, with no credential of any kind
// (the registry password is never read), under the CI policy: CRITICAL and HIGH
// vulnerabilities that have a fix fail it, except those accepted in .trivyignore.yaml.
// Returns the JSON and SARIF reports, a summary and verdict.json whatever the verdict, so
// the reports survive a failure; fail the job on the verdict after exporting them
// (jq -e .passed scan/verdict.json).
// +cache="never"
// +cacheReason="reads the registry and today's vulnerability database"
func (m *Shipyard) ScanDigests(
	ctx context.Context,
	// Images by digest, <registry>/<org>/<name>@sha256:… (repeatable).
	// +optional
	ref []string,
	// Or the JSON push-by-digest printed, {"filer": "<registry>/<org>/tesk-core-filer@sha256:…", …}, for the images of
	// --registry and --org.
	// +optional
	digests string,
) (*dagger.Directory, error) {
	return call(m, func(m *Shipyard) (_ *dagger.Directory, err error) {
		p, err := m.pipeline(ctx, nil)
		if err != nil {
			return nil, err
		}
		if (len(ref) == 0) == (digests == "") {
			return nil, errors.New("give either --ref (repeatable) or --digests")
		}
		public, err := m.publicTarget(ctx)
		if err != nil {
			return nil, err
		}
		var pushed []publish.Pushed
		if digests != "" {
			if pushed, err = m.pushed(ctx, digests, public); err != nil {
				return nil, err
			}
		}
		for _, r := range ref {
			x, err := publish.ParseRef(r, p.ImagePrefix)
			if err != nil {
				return nil, fmt.Errorf("--ref: %w", err)
			}
			resolved, err := publish.ResolvePlatforms(ctx, public, []publish.Pushed{x})
			if err != nil {
				return nil, fmt.Errorf("--ref: %w", err)
			}
			pushed = append(pushed, resolved...)
		}
		ignore, err := p.IgnoreFileContent(ctx)
		if err != nil {
			return nil, err
		}
		dir, _, err := publish.ScanDigests(ctx, m.fn, artifact.Scanner(p), pushed, ignore)
		return m.reports(ctx, dir, err)
	})
}

// Attest signs SLSA v1 build provenance for each pushed digest (the source and commit, the
// Dockerfile and build arguments, the GitHub workflow as builder) with Sigstore and
// attaches it to the digest as an OCI referrer, where cosign verify-attestation and gh
// attestation verify find it. A digest that already has its provenance keeps it. The
// identity token and the builder come from with-sigstore. Prints what was attached, as JSON.
// +cache="never"
// +trust="publishing(registry-password, identity-token)"
// +signs
// +cacheReason="writes to the registry and Sigstore"
func (m *Shipyard) Attest(
	ctx context.Context,
	// The digests push-by-digest printed, as JSON; the images it names, all or some.
	digests string,
	// The full commit SHA the images were built from.
	sha string,
	// The git ref built, e.g. refs/heads/dev or refs/tags/v0.11.0.
	// +default="refs/heads/dev"
	ref string,
	// The package version the images were built with, as given to push-by-digest.
	// +optional
	version string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		origin, err := m.origin()
		if err != nil {
			return "", err
		}
		prov := origin.Provenance(ref, sha)
		pushed, t, err := m.withLogin(ctx, digests)
		if err != nil {
			return "", err
		}
		p, built, err := m.images(ctx, version)
		if err != nil {
			return "", err
		}
		images := artifact.Of(built)
		if prov.BaseImages, err = publish.ReadBaseImages(ctx, p.Source, images); err != nil {
			return "", err
		}
		in, err := m.signInputs(ctx, prov)
		if err != nil {
			return "", err
		}
		return printed(publish.Attest(ctx, m.fn, in, t, pushed, images))
	})
}

// Sign signs each pushed digest with Sigstore, keylessly, as cosign v2.6 does with
// --new-bundle-format, and attaches the bundle to the digest as an OCI referrer, where
// cosign verify finds it. A digest that is already signed keeps its signature. The
// identity token comes from with-sigstore. Prints what was attached, as JSON.
// +cache="never"
// +trust="publishing(registry-password, identity-token)"
// +signs
// +cacheReason="writes to the registry and Sigstore"
func (m *Shipyard) Sign(
	ctx context.Context,
	// The digests push-by-digest printed, as JSON; the images it names, all or some.
	digests string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		pushed, t, err := m.withLogin(ctx, digests)
		if err != nil {
			return "", err
		}
		in, err := m.signInputs(ctx, publish.Provenance{})
		if err != nil {
			return "", err
		}
		return printed(publish.Sign(ctx, m.fn, in, t, pushed))
	})
}

// TagImages points tags at the pushed digests, after they were scanned, attested and
// signed. It plans every tag of every image first: a version (0.11.0) or commit tag
// (sha-<commit>) already on another digest is refused, naming both digests, and then no tag
// of any image is written. dev moves, with the commit's sha-<commit> tag in the same call,
// and only while that commit is still the newest of the dev branch (of --repo, read through
// the GitHub API) with an image: a re-run of an older run leaves dev, and reports it
// skipped. latest is the release's to set. A tag already on its digest is kept. Prints
// what was written, kept and skipped, as JSON.
// +cache="never"
// +trust="publishing(registry-password)"
// +cacheReason="moves tags in the registry"
func (m *Shipyard) TagImages(
	ctx context.Context,
	// The digests push-by-digest printed, as JSON; the images it names, all or some.
	digests string,
	// The tags to set (repeatable), e.g. sha-<commit> and dev.
	tag []string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		pushed, t, err := m.withLogin(ctx, digests)
		if err != nil {
			return "", err
		}
		branchOrder, err := m.branchOrder(ctx, t.Tags)
		if err != nil {
			return "", err
		}
		return printed(publish.TagImages(ctx, m.fn, t, pushed, tag, branchOrder))
	})
}

// ScanPublished is the weekly scan of published images: resolves each tag to its digest
// (anonymously, as users pull), scans that digest with Trivy under the CI policy, and
// returns every report: <image>-<tag>.sarif for code scanning, <image>-<tag>.json (the full
// report), summary.txt, targets.json (the digest of each tag) and verdict.json, whatever the
// verdict. With --fail, CRITICAL and HIGH findings that have a fix make the verdict fail;
// without it they are only reported. Fail the job on the verdict after exporting the
// reports (jq -e .passed scan/verdict.json).
// +cache="never"
// +cacheReason="reads the registry and today's vulnerability database"
func (m *Shipyard) ScanPublished(
	ctx context.Context,
	// Published images, <registry>/<org>/<name>:<tag> (repeatable), e.g.
	// docker.io/elixircloud/tesk-core-filer:latest.
	ref []string,
	// Let findings the policy blocks fail the verdict (otherwise report only).
	// +optional
	fail bool,
) (*dagger.Directory, error) {
	return call(m, func(m *Shipyard) (_ *dagger.Directory, err error) {
		p, err := m.pipeline(ctx, nil)
		if err != nil {
			return nil, err
		}
		ignore, err := p.IgnoreFileContent(ctx)
		if err != nil {
			return nil, err
		}
		public, err := m.publicTarget(ctx)
		if err != nil {
			return nil, err
		}
		dir, _, err := publish.ScanPublished(ctx, artifact.Scanner(p), p.ImagePrefix, public, ref, ignore, fail)
		return m.reports(ctx, dir, err)
	})
}

// Verify checks, before deploying, that an image has a valid Sigstore signature and SLSA
// build provenance from the given identity and issuer (e.g. tesk-core's release workflow and
// GitHub's OIDC issuer), against Sigstore's public-good trusted root (pinned by digest) or
// --trusted-root. A tag is resolved to its digest first; a multi-platform image's index is
// verified, then each platform image it lists, by its own digest. Prints what was verified.
// Without Shipyard, the same bundles verify with cosign verify-attestation against the
// registry, and with gh attestation verify oci://… --owner … against GitHub's attestation
// store (store-attestations): docs/tesk-core-images.md gives both.
// +cache="never"
// +signs
// +cacheReason="reads signatures from the registry"
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
	// Also require a CycloneDX SBOM attestation (predicate type https://cyclonedx.org/bom)
	// from the same signer.
	// +optional
	requireSbom bool,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		if err := output.Check(format); err != nil {
			return "", err
		}
		req, _, err := m.verifier(ctx, trustedRoot, minScts)
		if err != nil {
			return "", err
		}
		opts := append(req.Options, publish.WithPlatforms())
		if requireSbom {
			opts = append(opts, publish.WithRequiredSBOM())
		}
		v, err := publish.Verify(ctx, m.fn, req.Tool, req.RegistryTool, strings.TrimSpace(image), identity, issuer, req.TrustedRoot, opts...)
		if err != nil {
			return "", err
		}
		if format == "json" {
			return toJSON(v)
		}
		return v.Text(), nil
	})
}

// StoreAttestations puts the SLSA provenance and SBOM bundles of pushed digests into
// --repo's attestation store on GitHub, where `gh attestation verify oci://… --owner …` and
// the repository's Attestations page find them: each digest (of an index, each platform
// image too) is verified first against --identity and --issuer, and nothing is stored
// unless every one verifies. A bundle already stored is not stored again. Run it after
// attest and sign, before tag-images; publish-dev and the release do it themselves. The
// token needs attestations: write. Prints how many bundles were uploaded and found.
// +cache="never"
// +trust="publishing(github-token)"
// +signs
// +cacheReason="writes to GitHub's attestation store"
func (m *Shipyard) StoreAttestations(
	ctx context.Context,
	// The digests push-by-digest printed, as JSON; the images it names, all or some.
	digests string,
	// A regular expression the signer's certificate identity must match, anchored as ^…$:
	// the workflow that signed, e.g. ^https://github\.com/elixir-cloud-aai/tesk-core/\.github/workflows/ci\.yml@refs/heads/dev$
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
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		if m.GithubToken == nil {
			return "", errors.New("pass --github-token: a token that may write --repo's attestations (in a workflow, the job's token with permissions: attestations: write)")
		}
		req, t, err := m.verifier(ctx, trustedRoot, minScts)
		if err != nil {
			return "", err
		}
		req.Identity, req.Issuer = identity, issuer
		pushed, err := m.pushed(ctx, digests, t)
		if err != nil {
			return "", err
		}
		store, err := m.attestationStore(ctx)
		if err != nil {
			return "", err
		}
		return printed(publish.StoreAttestations(ctx, m.fn, req, pushed, store))
	})
}

// verifier is what a function that verifies reads with: the supplychain tool, the trusted
// root (trustedRoot, else Sigstore's public-good one, pinned), the certificate timestamps
// required, and the registry, with --registry-password's login when it is given and
// anonymously otherwise, as users pull. The request names no image and no signer.
func (m *Shipyard) verifier(ctx context.Context, trustedRoot *dagger.File, minScts int) (publish.VerifyRequest, publish.Target, error) {
	c, err := m.session(ctx)
	if err != nil {
		return publish.VerifyRequest{}, publish.Target{}, err
	}
	req := publish.VerifyRequest{TrustedRoot: publish.PublicGoodTrustedRoot(c), Options: []publish.VerifyOption{publish.WithMinSCTs(minScts)}}
	if trustedRoot != nil {
		if req.TrustedRoot, err = toSDKFile(ctx, c, trustedRoot); err != nil {
			return publish.VerifyRequest{}, publish.Target{}, fmt.Errorf("--trusted-root: %w", err)
		}
	}
	t, err := m.publicTarget(ctx)
	if m.RegistryPassword != nil && err == nil {
		if t, err = m.target(ctx); err == nil {
			req.Options = append(req.Options, publish.WithRegistryLogin(t))
		}
	}
	if err != nil {
		return publish.VerifyRequest{}, publish.Target{}, err
	}
	req.RegistryTool = t.RegistryTool
	if req.Tool, err = m.tool(ctx); err != nil {
		return publish.VerifyRequest{}, publish.Target{}, err
	}
	return req, t, nil
}
