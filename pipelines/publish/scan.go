package publish

import (
	"context"
	"fmt"

	"dagger.io/dagger"

	"dagger/shipyard/internal/trust"
	"dagger/shipyard/pipelines/ci"
)

// ScanDigests scans exactly the pushed digests with Trivy, under the policy of the CI scan
// (fail on CRITICAL and HIGH findings that have a fix, except those accepted in the ignore
// file given as ignore). Trivy pulls each repo@sha256:… anonymously: this graph receives no
// credential of any kind, so a scan job needs no secret. The directory holds
// <name>.json, <name>.sarif and summary.txt, also when the scan fails.
func ScanDigests(ctx context.Context, p *ci.Pipeline, pushed []Pushed, ignore []byte) (*dagger.Directory, []ci.ScanResult, error) {
	if err := checkPushed(pushed); err != nil {
		return nil, nil, fmt.Errorf("scan-digests: %w", err)
	}
	var targets []ci.ScanInput
	for _, img := range Scanned(pushed) {
		targets = append(targets, ci.ScanInput{Name: img.Name, Ref: img.Ref()})
	}
	// What a scan passes is published, so it reads Trivy's database from the release
	// level's cache, never one that CI of a pull request wrote.
	dir, results, err := p.AtTrust(trust.Release).ScanReports(ctx, targets, ignore)
	if err != nil {
		return dir, results, fmt.Errorf("scan-digests: %w", err)
	}
	return dir, results, nil
}
