package publish

import (
	"context"

	"dagger.io/dagger"
)

// Artifact is what publishing works on: one OCI image built by some system, whatever
// built it. tesk-core's images are one producer (pipelines/ci/artifact); a third system
// (a Helm chart pushed as an OCI artifact, say) makes its own and runs the same steps.
type Artifact struct {
	// Name names the artifact in logs, reports and the JSON the jobs hand over ("filer").
	Name string
	// Repository is its repository under the target's organisation ("tesk-core-filer").
	Repository string
	// Image is the artifact as an OCI tarball, for one platform; Platforms, when any, are
	// one tarball per platform, in order, pushed as one image index (Image is then the
	// first of them).
	Image     *dagger.File
	Platforms []PlatformImage
	// Recipe is how it was built, as its provenance records it.
	Recipe Recipe
}

// PlatformImage is an artifact's image for one platform, as an OCI tarball.
type PlatformImage struct {
	Platform dagger.Platform
	Image    *dagger.File
}

// Recipe is how an artifact was built: the Dockerfile (a path in the source) and the build
// arguments it was given, which the provenance names.
type Recipe struct {
	Dockerfile string
	BuildArgs  map[string]string
}

// ScanItem is one pushed image a scanner scans: its name in verdicts and reports, and its
// digest reference, which the scanner pulls anonymously.
type ScanItem struct {
	Name, Ref string
}

// ScanVerdict is a scanner's verdict on one image in publishing's terms: the image's name,
// whether the scanner's policy passed it, and the scanner's one-line summary. What the
// policy is, and the findings behind the verdict, are the scanner's own, in its reports.
type ScanVerdict struct {
	Name    string
	Passed  bool
	Summary string
}

// Scanner is the vulnerability scan publishing runs on the digests it pushed, under the
// producing system's policy: tesk-core's is Trivy's, with its ignore file
// (pipelines/ci/artifact). It receives no credential.
type Scanner interface {
	// IgnoreFile is the content of the policy's file of accepted findings.
	IgnoreFile(ctx context.Context) ([]byte, error)
	// Scan scans each target and returns the reports (whatever the verdict) and the
	// verdicts; the error is a failing verdict or a scan that did not run.
	Scan(ctx context.Context, targets []ScanItem, ignore []byte) (*dagger.Directory, []ScanVerdict, error)
	// SBOM is the CycloneDX JSON SBOM of one target.
	SBOM(t ScanItem) *dagger.File
	// Fix is what a maintainer does when the policy blocks an image, in the policy's
	// terms (which findings block, and how one is accepted).
	Fix() string
	// ReportOnly marks reports as passing whatever they found: a scan that only reports.
	ReportOnly(reports *dagger.Directory, job string) *dagger.Directory
}
