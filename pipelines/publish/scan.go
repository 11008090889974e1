package publish

import (
	"context"

	"dagger.io/dagger"

	"dagger/shipyard/pipelines/ci"
)

// ScanDigests scans exactly the pushed digests with Trivy, under the policy of the CI scan
// (fail on CRITICAL and HIGH findings that have a fix, except those accepted in the ignore
// file given as ignore). Trivy pulls each repo@sha256:… anonymously: this graph receives no
// credential of any kind, so a scan job needs no secret. The directory holds
// <name>.json, <name>.sarif and summary.txt, also when the scan fails.
func ScanDigests(ctx context.Context, p *ci.Pipeline, pushed []Pushed, ignore []byte) (*dagger.Directory, []ci.ScanResult, error) {
	if ignore == nil {
		ignore = []byte{}
	}
	s := &ImageState{Pipeline: p, Pushed: pushed, Ignore: ignore}
	err := Alone(ctx, StepScan, s, StepScan)
	return s.Reports, s.Scans, err
}

// scanDigests is the scan of pushed, as ScanDigests describes.
func scanDigests(ctx context.Context, p *ci.Pipeline, pushed []Pushed, ignore []byte) (*dagger.Directory, []ci.ScanResult, error) {
	var targets []ci.ScanInput
	for _, img := range Scanned(pushed) {
		targets = append(targets, ci.ScanInput{Name: img.Name, Ref: img.Ref()})
	}
	// Trivy's cache is the call's (p.Trust): a credentialed release's own, and
	// the pull-request level's for a credential-free scan, which anyone can make.
	return p.ScanReports(ctx, targets, ignore)
}
