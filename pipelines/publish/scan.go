package publish

import (
	"context"

	"dagger.io/dagger"

	"dagger/shipyard/internal/trivy"
)

// ScanDigests scans exactly the pushed digests with the scanner, under its policy (for
// tesk-core's, Trivy's: fail on CRITICAL and HIGH findings that have a fix, except those
// accepted in the ignore file given as ignore). The scanner pulls each repo@sha256:…
// anonymously: this graph receives no credential of any kind, so a scan job needs no
// secret; its caches are the call's trust level's. The directory holds
// <name>.json, <name>.sarif and summary.txt, also when the scan fails.
// fn is the function it is a call of, which names its flow in logs and errors.
func ScanDigests(ctx context.Context, fn string, sc Scanner, pushed []Pushed, ignore []byte) (*dagger.Directory, []trivy.TargetVerdict, error) {
	if ignore == nil {
		ignore = []byte{}
	}
	s := &ImageState{Scanner: sc, Pushed: pushed, Ignore: ignore}
	err := Alone(ctx, fn, s, StepScan)
	return s.Reports, s.Scans, err
}

// scanDigests is the scan of pushed, as ScanDigests describes.
func scanDigests(ctx context.Context, sc Scanner, pushed []Pushed, ignore []byte) (*dagger.Directory, []trivy.TargetVerdict, error) {
	var targets []ScanItem
	for _, img := range Scanned(pushed) {
		targets = append(targets, ScanItem{Name: img.Name, Ref: img.Ref()})
	}
	return sc.Scan(ctx, targets, ignore)
}
