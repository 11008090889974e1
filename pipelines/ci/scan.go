package ci

import (
	"context"
	"dagger/shipyard/internal/buildplatform"
	"fmt"
	"strings"
	"time"

	"dagger.io/dagger"

	"dagger/shipyard/internal/codescanning"
	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/internal/trivy"
)

// IgnoreFile is tesk-core's list of accepted findings, each with a reason and an expiry.
const IgnoreFile = ".trivyignore.yaml"

// ScanInput is what Trivy scans: a built image as an OCI tarball, or a published
// reference (repo@sha256:…) pulled anonymously.
type ScanInput struct {
	// Name names the target in verdicts and logs: the image, and for one platform of a
	// multi-platform image the platform too, "filer (linux/arm64)".
	Name    string
	Tarball *dagger.File
	Ref     string
}

// file is the stem of the target's report files: its name with the platform joined by
// dashes ("filer-linux-arm64"), since a slash would make a directory and a space a
// file name that shells must quote.
func (t ScanInput) file() string { return ReportFile(t.Name) }

// ReportFile turns a scan input's name into the stem of its report files: "filer" stays
// "filer", "filer (linux/arm64)" becomes "filer-linux-arm64".
func ReportFile(name string) string {
	return strings.NewReplacer(" (", "-", "/", "-", ")", "", " ", "-").Replace(name)
}

// ScanResult is the verdict on one target and its report files: trivy's, which publishing
// reads without this package.
type ScanResult = trivy.TargetVerdict

// trivyContainer runs Trivy on one target, writing the full JSON report (every severity,
// fixed or not, so the policy is decided in Go and the artifact shows everything) and its
// SARIF conversion under /out. It receives no credential of any kind.
//
// The scan cache is kept in memory: Trivy's file cache (fanal.db in the cache directory) is
// a bolt file one process holds exclusively, and a second scan on the same cache volume
// fails after 5 s ("cache may be in use by another process"), which is what concurrent
// scans of several images and platforms do. The vulnerability database stays on the
// volume; Trivy opens it read-only.
func (p *Pipeline) trivyContainer(t ScanInput) *dagger.Container {
	ctr := p.Client.Container().
		From(p.Pins.Trivy).
		WithMountedCache("/root/.cache/trivy", p.cacheVolume(trivyCacheVolume)).
		// Trivy does not create the directory of --output (seen with v0.74.0).
		WithDirectory("/out", p.Client.Directory()).
		// The verdict on an unchanged image changes as vulnerabilities are published, so a
		// scan is keyed by the day it runs: within a day the engine reuses it, the next day
		// it runs again with a fresh database.
		WithEnvVariable("SHIPYARD_SCAN_DAY", p.now().UTC().Format(time.DateOnly))
	target := []string{t.Ref}
	if t.Tarball != nil {
		ctr = ctr.WithFile("/scan/"+t.file()+".tar", t.Tarball)
		target = []string{"--input", "/scan/" + t.file() + ".tar"}
	}
	jsonOut, sarifOut := "/out/"+t.file()+".json", "/out/"+t.file()+".sarif"
	args := append([]string{"trivy", "image", "--cache-backend", "memory", "--scanners", "vuln", "--format", "json", "--output", jsonOut, "--exit-code", "0"}, target...)
	return ctr.
		WithExec(args).
		WithExec([]string{"trivy", "convert", "--format", "sarif", "--output", sarifOut, jsonOut})
}

// ScanReports scans every target concurrently and applies the policy: fail on CRITICAL and
// HIGH findings that have a fix, except those accepted in .trivyignore.yaml. The ignore
// file itself is checked first (reason, expiry); a bad entry fails the scan, and a file Trivy
// cannot load accepts nothing. The returned directory holds the reports whatever the
// verdict: <name>.json, <name>.sarif (accepted findings marked as suppressed, as code
// scanning expects), summary.txt and verdict.json; the error repeats a failing verdict.
func (p *Pipeline) ScanReports(ctx context.Context, targets []ScanInput, ignoreContent []byte) (*dagger.Directory, []ScanResult, error) {
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
		// CheckIgnoreFile has named the problem; scanning on with nothing accepted keeps the
		// reports, and the verdict fails.
		ignore = trivy.IgnoreFile{}
	}

	outcomes := make([]scanOutcome, len(targets))
	err = fanout.Each(ctx, 0, len(targets), func(ctx context.Context, i int) error {
		outcomes[i] = p.scanOne(ctx, targets[i], ignore, now)
		return nil // a target's failure is its outcome
	})
	if err != nil {
		return nil, nil, err // cancelled: a target was not scanned
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
		if o.dir != nil {
			out = out.WithDirectory(".", o.dir)
		}
		if o.err != nil {
			blocking = append(blocking, o.err.Error())
			fmt.Fprintf(&summary, "\n== %s: %s\n", name, o.err)
			continue
		}
		results = append(results, ScanResult{Name: name, Verdict: o.verdict})
		fmt.Fprintf(&summary, "\n== %s\n%s\n", name, o.verdict.Summary())
		if o.warning != "" {
			summary.WriteString(o.warning + "\n")
		}
		if !o.verdict.Passed() {
			blocking = append(blocking, fmt.Sprintf("image %s has fixable CRITICAL or HIGH vulnerabilities", name))
		}
	}
	out = WithVerdict(out.WithNewFile("summary.txt", summary.String()), NewVerdict("Scan", blocking...))
	if len(blocking) > 0 {
		return out, results, fmt.Errorf("scan failed: %s\n%s", strings.Join(blocking, "; "), summary.String())
	}
	return out, results, nil
}

// scanOutcome is one target's scan: its reports, its verdict, or what stopped it.
type scanOutcome struct {
	dir     *dagger.Directory
	verdict trivy.Verdict
	err     error
	// warning says what went wrong that does not change the verdict.
	warning string
}

// scanOne runs Trivy on one target, judges its report, and marks the accepted findings in
// its SARIF. The reports come back with any error but Trivy's own.
func (p *Pipeline) scanOne(ctx context.Context, t ScanInput, ignore trivy.IgnoreFile, now time.Time) (o scanOutcome) {
	ctr := p.trivyContainer(t)
	raw, err := ctr.File("/out/" + t.file() + ".json").Contents(ctx)
	if err != nil {
		// The exec error's text is only its exit code: name Trivy's own error line too.
		o.err = fmt.Errorf("scan %s: trivy: %w (%s)", t.Name, err, jobs.FirstErrorLine(err))
		return o
	}
	o.dir = ctr.Directory("/out")
	report, err := trivy.ParseReport([]byte(raw))
	if err != nil {
		o.err = fmt.Errorf("scan %s: reading Trivy's report: %w", t.Name, err)
		return o
	}
	o.verdict = trivy.Evaluate(report, ignore, now)
	// The SARIF log gets the target's code-scanning category and the marks of accepted
	// findings. Neither changes the verdict, so a log that cannot be rewritten is kept as
	// Trivy wrote it, with a warning.
	sarifPath := t.file() + ".sarif"
	sarif, err := ctr.File("/out/" + sarifPath).Contents(ctx)
	if err == nil {
		var out []byte
		if out, err = ReportSARIF(t.Name, []byte(sarif), o.verdict.Ignored); err == nil {
			o.dir = o.dir.WithNewFile(sarifPath, string(out))
			return o
		}
	}
	o.warning = fmt.Sprintf("warning: %s: kept as Trivy wrote it (%v): code scanning may refuse it beside the other images' logs, "+
		"and shows accepted findings as open alerts", sarifPath, err)
	return o
}

// ReportSARIF is the SARIF log Shipyard keeps for a scan target from Trivy's: every run in
// the target's own code-scanning category (SARIFCategory), so the reports of several
// images and platforms go to code scanning in one upload, and the findings
// .trivyignore.yaml accepts (ignored) marked as suppressed.
func ReportSARIF(target string, trivySARIF []byte, ignored []trivy.IgnoredFinding) ([]byte, error) {
	out, err := codescanning.SetAutomationID(trivySARIF, SARIFCategory(target))
	if err != nil || len(ignored) == 0 {
		return out, err
	}
	out, _, err = trivy.SuppressAccepted(out, ignored)
	return out, err
}

// SARIFCategory is a scan target's code-scanning category: its report's name, so each
// image and platform keeps its own alerts from one scan to the next.
func SARIFCategory(target string) string { return "shipyard-scan/" + ReportFile(target) }

// ImageTarball writes a built image as the tarball Trivy scans (--input) and the e2e
// cluster imports: one file for both, every layer gzip.
//
// Without forced compression Dagger keeps each layer's blob as it is, so an image on a base
// with uncompressed layers (a `docker save` import, a base written as plain tars) comes out
// with an uncompressed first layer and gzip layers above it. Trivy reads the tarball with
// go-containerregistry's tarball.Image, which judges the compression of every layer by the
// first one: it then walks the gzip layers as plain tars and fails with "failed to extract
// the archive: unexpected EOF" (or "invalid tar header"). With every layer gzip, each is
// decompressed by its own header. Layers that are gzip already are reused, so for images on
// registry bases this costs nothing.
func ImageTarball(ctr *dagger.Container) *dagger.File {
	return ctr.AsTarball(dagger.ContainerAsTarballOpts{ForcedCompression: dagger.ImageLayerCompressionGzip})
}

// ImageTargets turns built images into scan inputs (their ImageTarball).
func ImageTargets(images []Image) []ScanInput {
	out := make([]ScanInput, 0, len(images))
	for _, img := range images {
		if len(img.Variants) == 0 {
			out = append(out, ScanInput{Name: img.Spec.Name, Tarball: ImageTarball(img.Container)})
			continue
		}
		// Each platform's image is what a user of that platform runs: each is scanned.
		for _, v := range img.Variants {
			out = append(out, ScanInput{Name: buildplatform.TargetName(img.Spec.Name, v.Platform), Tarball: ImageTarball(v.Container)})
		}
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
		return nil, nil, err
	}
	return p.ScanReports(ctx, ImageTargets(images), ignore)
}

// SBOMPath is where SBOM writes the CycloneDX SBOM of target in its container.
func SBOMPath(name string) string { return "/out/" + name + ".cdx.json" }

// SBOM is the CycloneDX JSON SBOM of a target, written by the pinned Trivy from the same
// target the scan reads (a published repo@sha256:… pulled anonymously, or a tarball). It
// receives no credential. Unlike the scan it is not keyed by the day: the packages in an
// image do not change, so the engine reuses the SBOM of a digest for good.
func (p *Pipeline) SBOM(t ScanInput) *dagger.File {
	ctr := p.Client.Container().
		From(p.Pins.Trivy).
		WithMountedCache("/root/.cache/trivy", p.cacheVolume(trivyCacheVolume)).
		WithDirectory("/out", p.Client.Directory())
	target := []string{t.Ref}
	if t.Tarball != nil {
		ctr = ctr.WithFile("/scan/"+t.file()+".tar", t.Tarball)
		target = []string{"--input", "/scan/" + t.file() + ".tar"}
	}
	out := SBOMPath(t.file())
	args := append([]string{"trivy", "image", "--cache-backend", "memory", "--format", "cyclonedx", "--output", out}, target...)
	return ctr.WithExec(args).File(out)
}
