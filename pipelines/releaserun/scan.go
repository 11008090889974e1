package releaserun

import (
	"context"
	"fmt"

	"dagger.io/dagger"

	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/release"
)

// ScanRecord is a scan verdict on one pushed digest, as the report and the next job see it.
type ScanRecord struct {
	Name    string `json:"name"`
	Digest  string `json:"digest,omitempty"`
	Passed  bool   `json:"passed"`
	Summary string `json:"summary"`
}

// ignoreFile reads .trivyignore.yaml at the tagged commit; absent means no accepted findings.
func ignoreFile(ctx context.Context, src *dagger.Directory) ([]byte, error) {
	ok, err := src.Exists(ctx, ci.IgnoreFile)
	if err != nil {
		return nil, fmt.Errorf("looking for %s: %w", ci.IgnoreFile, err)
	}
	if !ok {
		return nil, nil
	}
	s, err := src.File(ci.IgnoreFile).Contents(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", ci.IgnoreFile, err)
	}
	return []byte(s), nil
}

// nextScan: findings need a new commit (an update or an accepted finding), hence a higher
// version; a scanner that failed to run can be re-run.
const nextScan = "nothing was tagged: if Trivy failed to run, re-run the release; if it found CRITICAL or HIGH " +
	"vulnerabilities with a fix, update the packages (or accept a finding in .trivyignore.yaml with a statement " +
	"and an expiry) on dev and release a higher version"

// Scan scans exactly the pushed digests, with no credential in the graph, under the CI
// scan's policy and the ignore file of the tagged commit. It returns the reports and one
// record per digest; any blocking finding stops the release before attesting.
func Scan(ctx context.Context, cfg Config, plan release.Plan, p *ci.Pipeline, pushed []publish.Pushed) (*dagger.Directory, []ScanRecord, error) {
	ignore, err := ignoreFile(ctx, p.Source)
	if err != nil {
		return nil, nil, stepErr(StepScan, plan.Tag, nextRerun, err)
	}
	dir, results, err := publish.ScanDigests(ctx, p, pushed, ignore)
	records := scanRecords(results, pushed)
	if err != nil {
		return dir, records, stepErr(StepScan, plan.Tag, nextScan, err)
	}
	cfg.logf("%s: %d digest(s) passed", StepScan, len(records))
	return dir, records, nil
}

// ScanBuilt scans the built containers themselves, for a dry run that pushes nothing.
func ScanBuilt(ctx context.Context, cfg Config, plan release.Plan, p *ci.Pipeline, images []ci.Image) (*dagger.Directory, []ScanRecord, error) {
	dir, results, err := p.Scan(ctx, images)
	records := scanRecords(results, nil)
	if err != nil {
		return dir, records, stepErr(StepScan, plan.Tag, nextScan, err)
	}
	cfg.logf("%s: %d built image(s) passed", StepScan, len(records))
	return dir, records, nil
}

func scanRecords(results []ci.ScanResult, pushed []publish.Pushed) []ScanRecord {
	digests := publish.Digests(pushed)
	out := make([]ScanRecord, 0, len(results))
	for _, r := range results {
		out = append(out, ScanRecord{Name: r.Name, Digest: digests[r.Name], Passed: r.Verdict.Passed(), Summary: r.Verdict.Summary()})
	}
	return out
}
