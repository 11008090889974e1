package release

import (
	"context"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/ci/artifact"
	"dagger/shipyard/pipelines/publish"
)

// ScanRecord is a scan verdict on one pushed digest, as the report and the next job see it.
type ScanRecord struct {
	Name    string `json:"name"`
	Digest  string `json:"digest,omitempty"`
	Passed  bool   `json:"passed"`
	Summary string `json:"summary"`
}

// scanBuilt is scan-digests on a dry run, which pushes nothing: it scans the built
// containers themselves.
func scanBuilt(ctx context.Context, s *releaseState) error {
	var err error
	var results []ci.ScanResult
	s.images.Reports, results, err = s.pipeline.Scan(ctx, s.built)
	s.images.Scans = artifact.Verdicts(results)
	if err != nil {
		return err
	}
	flow.Logf(ctx, "%d built image(s) passed", len(s.images.Scans))
	return nil
}

func scanRecords(results []publish.ScanVerdict, pushed []publish.Pushed) []ScanRecord {
	digests := publish.Digests(publish.Scanned(pushed))
	out := make([]ScanRecord, 0, len(results))
	for _, r := range results {
		out = append(out, ScanRecord{Name: r.Name, Digest: digests[r.Name], Passed: r.Passed, Summary: r.Summary})
	}
	return out
}
