// Package artifact is where tesk-core's CI meets publishing: its images become the
// artifacts publishing works on, and its Trivy scan the scanner publishing runs on the
// pushed digests. A third system that publishes OCI artifacts writes its own such package;
// publishing itself knows neither.
package artifact

import (
	"context"

	"dagger.io/dagger"

	"dagger/shipyard/internal/trivy"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/publish"
)

// Tags is tesk-core's tag policy: latest follows the highest release, dev the newest
// commit of the dev branch, and sha-<commit> names one commit's image.
func Tags() publish.TagPolicy {
	return publish.TagPolicy{Latest: "latest", BranchTag: "dev", Branch: "dev", CommitPrefix: "sha-"}
}

// VersionArg is the one build argument ci.Images passes, and only when it sets a version.
const VersionArg = "SETUPTOOLS_SCM_PRETEND_VERSION"

// Of is each image as the artifact publishing pushes, in order.
func Of(images []ci.Image) []publish.Artifact {
	out := make([]publish.Artifact, len(images))
	for i, img := range images {
		out[i] = One(img)
	}
	return out
}

// One is img as an artifact: its container as an OCI tarball, or one per platform, and
// the Dockerfile and version it was built with.
func One(img ci.Image) publish.Artifact {
	a := publish.Artifact{Name: img.Spec.Name, Repository: img.Spec.Repository,
		Recipe: publish.Recipe{Dockerfile: img.Spec.Dockerfile}}
	if img.Version != "" {
		a.Recipe.BuildArgs = map[string]string{VersionArg: img.Version}
	}
	// An image described only (attest reads its recipe) has no container.
	if img.Container != nil {
		a.Image = img.Container.AsTarball()
	}
	for _, v := range img.Variants {
		a.Platforms = append(a.Platforms, publish.PlatformImage{Platform: v.Platform, Image: v.Container.AsTarball()})
	}
	return a
}

// Scanner is the pipeline's Trivy scan under tesk-core's policy, with its ignore file
// (.trivyignore.yaml), as publishing's scanner. Its caches are the pipeline's trust level's
// (p.Trust): a credentialed release's own, and the pull-request level's for a
// credential-free scan, which anyone can make.
func Scanner(p *ci.Pipeline) publish.Scanner { return scanner{p} }

type scanner struct{ p *ci.Pipeline }

func (s scanner) IgnoreFile(ctx context.Context) ([]byte, error) { return s.p.IgnoreFileContent(ctx) }

func (s scanner) Scan(ctx context.Context, targets []publish.ScanItem, ignore []byte) (*dagger.Directory, []publish.ScanVerdict, error) {
	inputs := make([]ci.ScanInput, len(targets))
	for i, t := range targets {
		inputs[i] = ci.ScanInput{Name: t.Name, Ref: t.Ref}
	}
	reports, results, err := s.p.ScanReports(ctx, inputs, ignore)
	return reports, Verdicts(results), err
}

// Verdicts are Trivy's verdicts under tesk-core's policy as publishing's neutral ones.
func Verdicts(results []trivy.TargetVerdict) []publish.ScanVerdict {
	if results == nil {
		return nil
	}
	out := make([]publish.ScanVerdict, len(results))
	for i, r := range results {
		out[i] = publish.ScanVerdict{Name: r.Name, Passed: r.Verdict.Passed(), Summary: r.Verdict.Summary()}
	}
	return out
}

func (s scanner) SBOM(t publish.ScanItem) *dagger.File {
	return s.p.SBOM(ci.ScanInput{Name: t.Name, Ref: t.Ref})
}

// Fix is tesk-core's policy's way out: a CRITICAL or HIGH vulnerability with a fix blocks
// until its package is updated, or the finding is accepted in the ignore file.
func (s scanner) Fix() string {
	return "update the packages that have a fix for each CRITICAL or HIGH vulnerability (or accept a finding in " +
		ci.IgnoreFile + " with a statement and an expiry)"
}

func (s scanner) ReportOnly(reports *dagger.Directory, job string) *dagger.Directory {
	return ci.WithVerdict(reports, ci.NewVerdict(job))
}
