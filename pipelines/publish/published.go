package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/internal/fanout"
)

// PublishedTag is a published tag and the digest it pointed at when scanned.
type PublishedTag struct {
	// Name names the reports: <image>-<tag>, e.g. filer-latest.
	Name   string `json:"name"`
	Ref    string `json:"ref"`
	Digest string `json:"digest"`
	// Platforms are the platform images of a multi-platform image, each scanned by its
	// own digest and named "<name> (<platform>)" in the reports.
	Platforms []PlatformDigest `json:"platforms,omitempty"`
}

// ResolvePublished resolves each <registry>/<org>/<prefix><name>:<tag> to the digest it
// points at now, anonymously (as a user pulls it), and an index to the platform images it
// lists, so the scan and its report name exactly what was scanned. A reference by digest
// is checked to exist.
func ResolvePublished(ctx context.Context, t Target, refs []string, prefix string) ([]PublishedTag, error) {
	if len(refs) == 0 {
		return nil, InputErrorf("no image references given: pass %s, <registry>/<org>/<name>:<tag>", InputImageRefs)
	}
	anonymous := Target{RegistryTool: t.RegistryTool}
	out := make([]PublishedTag, len(refs))
	err := fanout.Each(ctx, 0, len(refs), func(ctx context.Context, i int) error {
		ref := refs[i]
		repo, tag, err := splitRef(ref)
		if err != nil {
			return err
		}
		// One call per reference: each may be in another registry.
		read, err := anonymous.resolveRefs(ctx, []string{ref}, true)
		if err != nil {
			return fmt.Errorf("%s: %w", ref, err)
		}
		digest, listed := read[0].Digest, read[0].Platforms
		if tag == "" {
			// A reference by digest names its report after the digest's first characters.
			tag = strings.TrimPrefix(digest, "sha256:")
			tag = tag[:min(12, len(tag))]
		}
		out[i] = PublishedTag{Name: strings.TrimPrefix(path.Base(repo), prefix) + "-" + tag, Ref: ref, Digest: digest, Platforms: listed}
		return nil
	})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, t := range out {
		if seen[t.Name] {
			return nil, fmt.Errorf("two references name the report %s: give each image and tag once", t.Name)
		}
		seen[t.Name] = true
	}
	return out, nil
}

// ScanPublished is the weekly scan of published images: it resolves each tag to its
// digest, scans that digest (each platform image of a multi-platform image) with Trivy (no
// credentials, as ScanDigests) under the CI policy, and returns every report (<name>.json, <name>.sarif for code scanning,
// summary.txt, and targets.json naming the digest of each tag). With fail, findings that
// the policy blocks fail the call; without it (report only) they are only reported. An
// image that could not be scanned fails the call either way.
func ScanPublished(ctx context.Context, sc Scanner, prefix string, t Target, refs []string, ignore []byte, fail bool) (*dagger.Directory, []ScanVerdict, error) {
	targets, err := ResolvePublished(ctx, t, refs, prefix)
	if err != nil {
		return nil, nil, err
	}
	scan := make([]ScanItem, 0, len(targets))
	for _, t := range targets {
		repo, _, _ := splitRef(t.Ref)
		for _, img := range Scanned([]Pushed{{Name: t.Name, Repository: repo, Digest: t.Digest, Platforms: t.Platforms}}) {
			scan = append(scan, ScanItem{Name: img.Name, Ref: img.Ref()})
		}
	}
	dir, results, scanErr := sc.Scan(ctx, scan, ignore)
	if dir == nil {
		return nil, nil, scanErr
	}
	index, err := json.MarshalIndent(targets, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	dir = dir.WithNewFile("targets.json", string(index)+"\n")
	switch {
	case scanErr == nil:
		return dir, results, nil
	case len(results) < len(scan):
		return dir, results, fmt.Errorf("an image could not be scanned: %w", scanErr)
	case fail:
		return dir, results, scanErr
	default:
		// Report only: the findings stay in the reports; the verdict says it reported.
		return sc.ReportOnly(dir, "Scan published images (report only)"), results, nil
	}
}
