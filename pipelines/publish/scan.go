package publish

import (
	"context"

	"dagger.io/dagger"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/functions"
)

// scanDigests is the scan of pushed, as ScanDigests describes.
func scanDigests(ctx context.Context, sc Scanner, pushed []Pushed, ignore []byte) (*dagger.Directory, []ScanVerdict, error) {
	var targets []ScanItem
	for _, img := range Scanned(pushed) {
		targets = append(targets, ScanItem{Name: img.Name, Ref: img.Ref()})
	}
	return sc.Scan(ctx, targets, ignore)
}

// StepScan is the name of the scan-digests step.
const StepScan = functions.ScanDigests

var scanStep = imageStep{name: StepScan, writes: false, next: adviceScan, run: (*ImageState).scan}

// scan scans exactly the pushed digests, with no credential in the graph.
func (s *ImageState) scan(ctx context.Context) error {
	ignore := s.Ignore
	if ignore == nil {
		var err error
		if ignore, err = s.Scanner.IgnoreFile(ctx); err != nil {
			return err
		}
	}
	var err error
	s.Reports, s.Scans, err = scanDigests(ctx, s.Scanner, s.Pushed, ignore)
	if err != nil {
		return err
	}
	flow.Logf(ctx, "%d digest(s) passed", len(s.Scans))
	return nil
}
