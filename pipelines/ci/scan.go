package ci

import (
	"context"
	"fmt"
	"strings"
	"time"

	"dagger.io/dagger"

	"dagger/shipyard/internal/trivy"
)

// IgnoreFile is tesk-core's list of accepted findings, each with a reason and an expiry.
const IgnoreFile = ".trivyignore.yaml"

// ScanTarget is what Trivy scans: a built image as an OCI tarball, or a published
// reference (repo@sha256:…) pulled anonymously.
type ScanTarget struct {
	Name    string
	Tarball *dagger.File
	Ref     string
}

// ScanResult is the verdict on one target and its report files.
type ScanResult struct {
	Name    string
	Verdict trivy.Verdict
}

// trivyContainer runs Trivy on one target, writing the full JSON report (every severity,
// fixed or not, so the policy is decided in Go and the artifact shows everything) and its
// SARIF conversion under /out. It receives no credential of any kind.
func (p *Pipeline) trivyContainer(t ScanTarget) *dagger.Container {
	ctr := p.Client.Container().
		From(p.Pins.Trivy).
		WithMountedCache("/root/.cache/trivy", p.cacheVolume(trivyCacheVolume)).
		// The verdict on an unchanged image changes as vulnerabilities are published, so a
		// scan is keyed by the day it runs: within a day the engine reuses it, the next day
		// it runs again with a fresh database.
		WithEnvVariable("SHIPYARD_SCAN_DAY", p.now().UTC().Format(time.DateOnly))
	target := []string{t.Ref}
	if t.Tarball != nil {
		ctr = ctr.WithFile("/scan/"+t.Name+".tar", t.Tarball)
		target = []string{"--input", "/scan/" + t.Name + ".tar"}
	}
	jsonOut, sarifOut := "/out/"+t.Name+".json", "/out/"+t.Name+".sarif"
	args := append([]string{"trivy", "image", "--scanners", "vuln", "--format", "json", "--output", jsonOut, "--exit-code", "0"}, target...)
	return ctr.
		WithExec(args).
		WithExec([]string{"trivy", "convert", "--format", "sarif", "--output", sarifOut, jsonOut})
}

// ScanReports scans every target concurrently and applies the policy: fail on CRITICAL and
// HIGH findings that have a fix, except those accepted in .trivyignore.yaml. The ignore
// file itself is checked first (reason, expiry); a bad entry fails the scan. The returned
// directory holds <name>.json, <name>.sarif and summary.txt.
func (p *Pipeline) ScanReports(ctx context.Context, targets []ScanTarget, ignoreContent []byte) (*dagger.Directory, []ScanResult, error) {
	now := p.now()
	var notes []string
	var blocking []string
	for _, pr := range trivy.CheckIgnoreFile(ignoreContent, now) {
		line := fmt.Sprintf("%s:%d: %s", IgnoreFile, pr.Line, pr.Message)
		if pr.Warning {
			notes = append(notes, "warning: "+line)
		} else {
			blocking = append(blocking, line)
		}
	}
	ignore, err := trivy.ParseIgnoreFile(ignoreContent)
	if err != nil {
		return nil, nil, fmt.Errorf("scan: %s: %w", IgnoreFile, err)
	}

	type outcome struct {
		dir     *dagger.Directory
		report  string
		verdict trivy.Verdict
		err     error
	}
	outcomes := make([]outcome, len(targets))
	done := make(chan struct{}, len(targets))
	for i, t := range targets {
		go func() {
			defer func() { done <- struct{}{} }()
			ctr := p.trivyContainer(t)
			raw, err := ctr.File("/out/" + t.Name + ".json").Contents(ctx)
			if err != nil {
				outcomes[i].err = fmt.Errorf("scan %s: trivy: %w", t.Name, err)
				return
			}
			report, err := trivy.ParseReport([]byte(raw))
			if err != nil {
				outcomes[i].err = fmt.Errorf("scan %s: reading Trivy's report: %w", t.Name, err)
				return
			}
			outcomes[i] = outcome{dir: ctr.Directory("/out"), report: raw, verdict: trivy.Evaluate(report, ignore, now)}
		}()
	}
	for range targets {
		<-done
	}

	out := p.Client.Directory()
	var results []ScanResult
	var summary strings.Builder
	for _, n := range notes {
		summary.WriteString(n + "\n")
	}
	for _, b := range blocking {
		summary.WriteString("error: " + b + "\n")
	}
	for i, o := range outcomes {
		name := targets[i].Name
		if o.err != nil {
			blocking = append(blocking, o.err.Error())
			fmt.Fprintf(&summary, "\n== %s: %s\n", name, o.err)
			continue
		}
		out = out.WithDirectory(".", o.dir)
		results = append(results, ScanResult{Name: name, Verdict: o.verdict})
		fmt.Fprintf(&summary, "\n== %s\n%s\n", name, o.verdict.Summary())
		if !o.verdict.Passed() {
			blocking = append(blocking, fmt.Sprintf("image %s has fixable CRITICAL or HIGH vulnerabilities", name))
		}
	}
	out = out.WithNewFile("summary.txt", summary.String())
	if len(blocking) > 0 {
		return out, results, fmt.Errorf("scan failed: %s\n%s", strings.Join(blocking, "; "), summary.String())
	}
	return out, results, nil
}

// ImageTargets turns built images into scan targets (their OCI tarballs).
func ImageTargets(images []Image) []ScanTarget {
	out := make([]ScanTarget, 0, len(images))
	for _, img := range images {
		out = append(out, ScanTarget{Name: img.Spec.Name, Tarball: img.Container.AsTarball()})
	}
	return out
}

// IgnoreFileContent reads .trivyignore.yaml from the source; absent means no accepted findings.
func (p *Pipeline) IgnoreFileContent(ctx context.Context) ([]byte, error) {
	s, _, err := readSourceFile(ctx, p.Source, IgnoreFile)
	return []byte(s), err
}

// Scan builds (or reuses) the images and scans them.
func (p *Pipeline) Scan(ctx context.Context, images []Image) (*dagger.Directory, []ScanResult, error) {
	ignore, err := p.IgnoreFileContent(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("scan: %w", err)
	}
	return p.ScanReports(ctx, ImageTargets(images), ignore)
}
