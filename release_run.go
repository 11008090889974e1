package main

import (
	"context"
	"fmt"

	"dagger/shipyard/internal/buildplatform"
	"dagger/shipyard/internal/demo"
	"dagger/shipyard/internal/output"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/release"
	"dagger/shipyard/pipelines/releasegate"
)

// Release publishes a tesk-core release: release-plan (every gate of the tag; any violated
// gate stops everything), both images built at the tagged commit fetched by Dagger's git API
// with SETUPTOOLS_SCM_PRETEND_VERSION set to the version and checked inside each image,
// pushed by digest (untagged), those digests scanned, attested and signed, then tagged
// X.Y.Z (and latest when the plan says so and, rechecked right before, no higher release
// was published meanwhile), and finally the GitHub release with the curated notes and
// GitHub's generated notes. A re-run finishes a failed release without a second release or
// a moved version; a version published on another digest stops it. Returns the report:
// per image its digest, tags, scan result, signature and attestation; the release URL.
// +cache="never"
// +trust="publishing(github-token, registry-password, identity-token)"
// +signs
// +allPlatforms
// +cacheReason="publishes images and a GitHub release"
func (m *Shipyard) Release(
	ctx context.Context,
	// The release tag, e.g. v0.11.0 or v0.11.0rc1.
	tag string,
	// Stop after the plan, the builds, the version check, the scan of the built images and
	// the release notes, and print what would be published: nothing is pushed, tagged or
	// created.
	// +optional
	dryRun bool,
	// Output format of the report: text or json.
	// +default="text"
	format string,
	// The CI workflow's file name under .github/workflows.
	// +default="ci.yml"
	workflow string,
	// The Python distribution in the images; default: [project] name of pyproject.toml at the tag.
	// +optional
	pythonPackage string,
	// Where Dagger fetches the tagged source; default: <the GitHub of --github-api>/<repo>.git.
	// +optional
	gitUrl string,
) (string, error) {
	return call(m.rehearsing(dryRun), func(m *Shipyard) (_ string, err error) {
		if err := output.Check(format); err != nil {
			return "", err
		}
		cfg, err := m.releaseConfig(ctx, releaseFlags{workflow: workflow, pythonPackage: pythonPackage, gitURL: gitUrl, signing: !dryRun})
		if err != nil {
			return "", err
		}
		rep, err := release.Run(ctx, cfg, tag, release.Options{DryRun: dryRun})
		if err != nil {
			if rep.Version == "" {
				return "", err
			}
			// What was done before the failure helps the maintainer decide: print it with the error.
			return "", fmt.Errorf("%w\n\n%s", err, rep.Text())
		}
		return output.Render(format, rep, rep.Text)
	})
}

// ReleasePush is the release workflow's push job: release-plan, both images built at the
// tagged commit, their version checked, and pushed by digest, untagged. Prints the JSON the
// scan job reads (--handoff).
// +cache="never"
// +trust="publishing(github-token, registry-password)"
// +allPlatforms
// +cacheReason="writes to the registry"
func (m *Shipyard) ReleasePush(
	ctx context.Context,
	// The release tag, e.g. v0.11.0.
	tag string,
	// The CI workflow's file name under .github/workflows.
	// +default="ci.yml"
	workflow string,
	// The Python distribution in the images; default: from pyproject.toml at the tag.
	// +optional
	pythonPackage string,
	// Where Dagger fetches the tagged source; default: <the GitHub of --github-api>/<repo>.git.
	// +optional
	gitUrl string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		cfg, err := m.releaseConfig(ctx, releaseFlags{workflow: workflow, pythonPackage: pythonPackage, gitURL: gitUrl})
		if err != nil {
			return "", err
		}
		return printed(release.PushJob(ctx, cfg, tag))
	})
}

// ReleasePushPlatform is one platform's push job of a release built on native runners
// (one job per platform, e.g. linux/arm64 on an arm64 runner, so nothing is emulated):
// release-plan, both images built at the tagged commit for that platform only, their
// version checked, and pushed by digest, untagged, as single images. Prints the JSON the
// release-assemble job reads. On one machine, release-push builds every platform at once.
// +cache="never"
// +trust="publishing(github-token, registry-password)"
// +allPlatforms
// +cacheReason="writes to the registry"
func (m *Shipyard) ReleasePushPlatform(
	ctx context.Context,
	// The release tag, e.g. v0.11.0.
	tag string,
	// The platform this job builds, one of those the release publishes (with-platforms;
	// default linux/amd64 and linux/arm64), e.g. linux/arm64.
	platform string,
	// The CI workflow's file name under .github/workflows.
	// +default="ci.yml"
	workflow string,
	// The Python distribution in the images; default: from pyproject.toml at the tag.
	// +optional
	pythonPackage string,
	// Where Dagger fetches the tagged source; default: <the GitHub of --github-api>/<repo>.git.
	// +optional
	gitUrl string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		p, err := buildplatform.Parse([]string{platform})
		if err != nil {
			return "", fmt.Errorf("--platform: %w", err)
		}
		cfg, err := m.releaseConfig(ctx, releaseFlags{workflow: workflow, pythonPackage: pythonPackage, gitURL: gitUrl})
		if err != nil {
			return "", err
		}
		return printed(release.PushPlatformJob(ctx, cfg, tag, p[0]))
	})
}

// ReleaseAssemble is the job after the platform push jobs (release-push-platform):
// release-plan again, a check that their outputs are of this release, one per platform it
// publishes, each with every image in its repository and each image for the platform it
// is listed under, then each image's index of those platform images, pushed by digest,
// untagged: the index release-push would push for the same images. Builds nothing. Prints
// the JSON the scan job reads (--handoff), as release-push does.
// +cache="never"
// +trust="publishing(github-token, registry-password)"
// +allPlatforms
// +cacheReason="reads and writes the registry"
func (m *Shipyard) ReleaseAssemble(
	ctx context.Context,
	// The release tag, e.g. v0.11.0.
	tag string,
	// What the platform push jobs printed, as one JSON array with one element per
	// platform: [<the linux/amd64 job's>,<the linux/arm64 job's>].
	pushed string,
	// The CI workflow's file name under .github/workflows.
	// +default="ci.yml"
	workflow string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		parts, err := release.ParsePlatformHandoffs(pushed)
		if err != nil {
			return "", fmt.Errorf("--pushed: %w", err)
		}
		cfg, err := m.releaseConfig(ctx, releaseFlags{workflow: workflow})
		if err != nil {
			return "", err
		}
		return printed(release.AssembleJob(ctx, cfg, tag, parts))
	})
}

// ReleaseScan is the release workflow's scan job: Trivy on exactly the pushed digests,
// pulled anonymously, under the policy and the .trivyignore.yaml of the tagged commit. It
// uses no credential of any kind. Given the push job's JSON, it prints that JSON with the
// verdicts added; given the platform push jobs' outputs as one JSON array (a release
// pushed per platform, before its indexes exist), it scans each platform image and prints
// the verdicts, which the publish job takes for the indexes it assembles. Either is what
// release-publish reads (--handoff).
// +cache="never"
// +cacheReason="reads the registry and today's vulnerability database"
func (m *Shipyard) ReleaseScan(
	ctx context.Context,
	// What the push job printed, or the platform push jobs' outputs as a JSON array
	// ('[<amd64 job's>,<arm64 job's>]').
	handoff string,
	// Where Dagger fetches the tagged source; default: <the GitHub of --github-api>/<repo>.git.
	// +optional
	gitUrl string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		cfg, err := m.scanConfig(ctx, gitUrl)
		if err != nil {
			return "", err
		}
		if release.IsPlatformHandoffs(handoff) {
			parts, err := release.ParsePlatformHandoffs(handoff)
			if err != nil {
				return "", fmt.Errorf("--handoff: %w", err)
			}
			scanned, _, err := release.ScanPlatformsJob(ctx, cfg, parts)
			if err != nil {
				return "", err
			}
			return scanned.JSON()
		}
		h, err := release.ParseHandoff(handoff)
		if err != nil {
			return "", err
		}
		scanned, _, err := release.ScanJob(ctx, cfg, h)
		if err != nil {
			return "", err
		}
		return scanned.JSON()
	})
}

// scanConfig is the release's configuration for the scan job: no credential, the
// registry command reading anonymously. --demo refuses it as releaseConfig refuses the
// other jobs: what it scans was pushed by a job before it, to a registry the demo does not
// serve.
func (m *Shipyard) scanConfig(ctx context.Context, gitURL string) (release.Config, error) {
	cfg, err := m.releaseBase(ctx)
	if err != nil {
		return release.Config{}, err
	}
	cfg.GitURL = gitURL
	cfg.Images.Target, err = m.publicTarget(ctx)
	return cfg, err
}

// releaseBase is what every release job's configuration holds, the scan job's too: the
// function, the session, the repository and its GitHub web root, the call's trust level
// and --pin. --demo runs only the release's dry run, which stops where the demo serves
// nothing more (demo.Release): every other call is refused here first, the one place the
// release's demo is decided.
func (m *Shipyard) releaseBase(ctx context.Context) (release.Config, error) {
	var stop release.Stop
	if m.Demo {
		s, err := demo.Release(m.fn, m.rehearsal)
		if err != nil {
			return release.Config{}, err
		}
		stop = release.Stop{Before: s.Before, Reason: s.Reason}
	}
	c, err := m.session(ctx)
	if err != nil {
		return release.Config{}, err
	}
	web, err := m.githubWeb()
	if err != nil {
		return release.Config{}, err
	}
	level, err := m.level(ctx)
	if err != nil {
		return release.Config{}, err
	}
	// The tagged commit's pins file comes between the defaults and --pin; a malformed
	// --pin is refused now, before anything runs.
	if _, err := m.pins(); err != nil {
		return release.Config{}, err
	}
	return release.Config{Flow: m.fn, Client: c, Stop: stop, Repo: m.Repo, GitHubWeb: web, Trust: level, PinOverrides: m.Pin}, nil
}

// ReleasePublish is the release workflow's publish job: release-plan again (so latest
// follows the releases published by now), a check that the scanned digests are exactly
// those the push job pushed, then provenance and signature for each, verified with the
// signer's identity, then the tags X.Y.Z and, when still the highest release, latest.
// Nothing is built again. Prints the report. A release pushed per platform runs
// release-assemble in this job first: its output is --pushed, and the scan job's verdicts
// on the platform images are --handoff; each platform image an index lists must have a
// passing verdict on its very digest.
// +cache="never"
// +trust="publishing(github-token, registry-password, identity-token)"
// +signs
// +allPlatforms
// +cacheReason="signs and tags in the registry"
func (m *Shipyard) ReleasePublish(
	ctx context.Context,
	// What the scan job printed.
	handoff string,
	// What the push job (or release-assemble) printed: the digests to publish, which the
	// scan job's verdicts must cover exactly.
	pushed string,
	// Output format of the report: text or json.
	// +default="json"
	format string,
	// The CI workflow's file name under .github/workflows.
	// +default="ci.yml"
	workflow string,
	// Where Dagger fetches the tagged source; default: <the GitHub of --github-api>/<repo>.git.
	// +optional
	gitUrl string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		if err := output.Check(format); err != nil {
			return "", err
		}
		p, err := release.ParseHandoff(pushed)
		if err != nil {
			return "", fmt.Errorf("--pushed: %w", err)
		}
		h, handoffErr := release.ParseHandoff(handoff)
		platformScans, scansErr := release.ParsePlatformScans(handoff)
		if handoffErr != nil && scansErr != nil {
			return "", fmt.Errorf("--handoff: neither the scan job's handoff (%v) nor its verdicts on platform images (%v)", handoffErr, scansErr)
		}
		cfg, err := m.releaseConfig(ctx, releaseFlags{workflow: workflow, gitURL: gitUrl, signing: true})
		if err != nil {
			return "", err
		}
		var rep release.Report
		if handoffErr == nil {
			rep, err = release.PublishJob(ctx, cfg, h, p)
		} else {
			rep, err = release.PublishPlatformScans(ctx, cfg, platformScans, p)
		}
		if err != nil {
			return "", err
		}
		return output.Render(format, rep, rep.Text)
	})
}

// ReleasePublishRelease is the release workflow's last job: once both images carry the
// version, it creates the GitHub release of the tag (curated notes, GitHub's generated
// notes under "## Commits", the Full Changelog line last; pre-release and make_latest as
// planned). Re-run alone after a failure, it passes without changes if the release was
// created after all, and stops if a release of the tag has other content. Needs a token
// with contents: write, and no registry credentials.
// +cache="never"
// +trust="publishing(github-token)"
// +allPlatforms
// +cacheReason="writes a GitHub release"
func (m *Shipyard) ReleasePublishRelease(
	ctx context.Context,
	// The release tag, e.g. v0.11.0.
	tag string,
	// Output format: text or json.
	// +default="text"
	format string,
	// The CI workflow's file name under .github/workflows.
	// +default="ci.yml"
	workflow string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		if err := output.Check(format); err != nil {
			return "", err
		}
		cfg, err := m.releaseConfig(ctx, releaseFlags{workflow: workflow})
		if err != nil {
			return "", err
		}
		rel, err := release.ReleaseJob(ctx, cfg, tag)
		if err != nil {
			return "", err
		}
		return output.Render(format, rel, func() string {
			return release.Report{Tag: tag, Release: rel}.Text()
		})
	})
}

// releaseFlags are the arguments the release functions share.
type releaseFlags struct {
	workflow, pythonPackage, gitURL string
	// signing: the function attests and signs, so it needs the token and the tool.
	signing bool
}

// releaseConfig turns the module's arguments into the release flow's configuration, on
// releaseBase. Containers get the tokens as secrets; the module reads a value into memory
// only to seal the release level's cache volume names (trust.go).
func (m *Shipyard) releaseConfig(ctx context.Context, f releaseFlags) (release.Config, error) {
	cfg, err := m.releaseBase(ctx)
	if err != nil {
		return release.Config{}, err
	}
	// The demo's tag comes from the demo's git host only, refused before anything runs.
	cfg.GitURL = f.gitURL
	if m.Demo {
		e, err := m.demoEndpoints(ctx)
		if err != nil {
			return release.Config{}, err
		}
		if cfg.GitURL, err = demo.GitURL(f.gitURL, e.Git, m.Repo); err != nil {
			return release.Config{}, err
		}
		cfg.GitService = e.Service
	}
	if cfg.GitHub, err = m.githubClient(ctx); err != nil {
		return release.Config{}, err
	}
	if cfg.Images, err = m.imageSteps(ctx, f.signing); err != nil {
		return release.Config{}, err
	}
	cfg.Gates = releasegate.Config{Workflow: f.workflow, ImageOrg: m.Org}
	cfg.Package, cfg.Log = f.pythonPackage, logToStderr
	if cfg.Platforms, err = m.platformsOf(); err != nil {
		return release.Config{}, err
	}
	if m.GithubToken != nil {
		if cfg.GitHubToken, err = toSDKSecret(ctx, cfg.Client, m.GithubToken); err != nil {
			return release.Config{}, fmt.Errorf("--github-token: %w", err)
		}
	}
	return cfg, nil
}

// imageSteps are the registry target and, when the function signs, the signing inputs
// with-sigstore gave and the origin of the provenance (the repository and the builder); the
// release makes the provenance from it with its tag and commit.
func (m *Shipyard) imageSteps(ctx context.Context, signing bool) (release.ImageConfig, error) {
	target, err := m.target(ctx)
	if err != nil || !signing {
		return release.ImageConfig{Target: target}, err
	}
	if !m.hasIdentityToken() {
		// Refused before anything is built, in the words the signing steps use.
		return release.ImageConfig{}, publish.NoIdentityToken()
	}
	origin, err := m.origin()
	if err != nil {
		return release.ImageConfig{}, err
	}
	// Refused before anything is built or pushed, as the identity token is.
	if err := origin.CheckBuilder(); err != nil {
		return release.ImageConfig{}, err
	}
	// The provenance itself is the release's to make, once its plan names the tag and commit.
	in, err := m.signInputs(ctx, publish.Provenance{})
	if err == nil {
		err = in.Check() // the target is checked already (target)
	}
	return release.ImageConfig{Target: target, Sign: in, Origin: origin}, err
}
