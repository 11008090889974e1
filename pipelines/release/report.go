package release

import (
	"fmt"
	"strings"

	"dagger/shipyard/internal/output"
)

// Report is what a release did, or in a dry run would do. Its JSON field names are stable.
type Report struct {
	Repo    string `json:"repo"`
	Tag     string `json:"tag"`
	Version string `json:"version"`
	Commit  string `json:"commit"`
	DryRun  bool   `json:"dry_run"`
	// Failed names the step that stopped the release; empty when it completed.
	Failed string `json:"failed,omitempty"`
	// Stopped is where and why a run that was told to stop early did (Config.Stop).
	Stopped Stop          `json:"stopped,omitzero"`
	Images  []ImageReport `json:"images"`
	Release GitHubRelease `json:"release"`
}

// ImageReport is one image of the release.
type ImageReport struct {
	Name       string `json:"name"`
	Repository string `json:"repository"`
	// Digest is the pushed digest; in a dry run, the digest that would be pushed.
	Digest string `json:"digest,omitempty"`
	// Tags are on the digest now; in a dry run, the tags that would be written.
	Tags []string `json:"tags"`
	// LatestSkipped says why latest was not moved although the plan wanted it.
	LatestSkipped string     `json:"latest_skipped,omitempty"`
	Scan          ScanRecord `json:"scan"`
	// Signature and Attestation are the referrers (<repository>@sha256:…) holding the
	// Sigstore bundles.
	Signature   string `json:"signature,omitempty"`
	Attestation string `json:"attestation,omitempty"`
	SBOM        string `json:"sbom,omitempty"`
	// Platforms are the platform images of a multi-platform image, whose Digest is then
	// the index's; each is scanned and carries its own evidence. Scan is then their
	// verdict together.
	Platforms []PlatformReport `json:"platforms,omitempty"`
}

// PlatformReport is one platform's image of a multi-platform image.
type PlatformReport struct {
	Platform    string     `json:"platform"`
	Digest      string     `json:"digest"`
	Scan        ScanRecord `json:"scan"`
	Signature   string     `json:"signature,omitempty"`
	Attestation string     `json:"attestation,omitempty"`
	SBOM        string     `json:"sbom,omitempty"`
}

// Ref is the image's reference by digest, or by its first tag when no digest is known.
func (i ImageReport) Ref() string {
	switch {
	case i.Digest != "":
		return i.Repository + "@" + i.Digest
	case len(i.Tags) > 0:
		return i.Repository + ":" + i.Tags[0]
	}
	return i.Repository
}

// JSON renders the report for the next job of a workflow.
func (r Report) JSON() (string, error) {
	return output.Marshal(r)
}

// Text renders the report for people: every reference, tag and the release as published.
func (r Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Release %s of %s (version %s, commit %s)\n", r.Tag, r.Repo, r.Version, r.Commit)
	switch {
	case r.Stopped.Before != "":
		fmt.Fprintf(&b, "  passed:  %s\n", strings.Join(r.Stopped.After, ", "))
		fmt.Fprintf(&b, "  stopped before step %s: %s\n", r.Stopped.Before, r.Stopped.Reason)
		if r.DryRun {
			b.WriteString("  dry run: nothing was pushed, tagged or created\n")
		}
	case r.DryRun:
		b.WriteString("  dry run: nothing was pushed, tagged or created; this is what would be published\n")
	case r.Failed != "":
		fmt.Fprintf(&b, "  stopped at step %s; what was done so far:\n", r.Failed)
	}
	for _, img := range r.Images {
		fmt.Fprintf(&b, "  %s\n", img.Ref())
		fmt.Fprintf(&b, "    tags:        %s\n", orDash(strings.Join(img.Tags, ", ")))
		if img.LatestSkipped != "" {
			fmt.Fprintf(&b, "    latest:      not moved: %s\n", img.LatestSkipped)
		}
		if img.Scan.Name != "" {
			fmt.Fprintf(&b, "    scan:        %s\n", verdictWord(img.Scan.Passed))
		}
		if img.Attestation != "" {
			fmt.Fprintf(&b, "    attestation: %s\n", img.Attestation)
		}
		if img.Signature != "" {
			fmt.Fprintf(&b, "    signature:   %s\n", img.Signature)
		}
		for _, p := range img.Platforms {
			fmt.Fprintf(&b, "    %s: %s", p.Platform, p.Digest)
			if p.Scan.Name != "" {
				fmt.Fprintf(&b, " (scan %s)", verdictWord(p.Scan.Passed))
			}
			b.WriteString("\n")
		}
	}
	rel := r.Release
	if rel.Tag != "" {
		latest := rel.MakeLatest
		if latest == "" {
			latest = "as created earlier"
		}
		fmt.Fprintf(&b, "  GitHub release %q (pre-release %s, make_latest %s): %s", rel.Title, output.YesNo(rel.Prerelease), latest, orDash(rel.Outcome))
		if rel.URL != "" {
			b.WriteString(" " + rel.URL)
		}
		b.WriteString("\n")
		b.WriteString(output.Quoted(rel.Body))
	}
	return b.String()
}

func verdictWord(passed bool) string {
	if passed {
		return "passed"
	}
	return "FAILED"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
