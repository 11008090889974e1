package release

import (
	"context"
	"dagger/shipyard/internal/buildplatform"
	"errors"
	"fmt"

	"dagger.io/dagger"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/pipelines/publish"
)

// A release whose push is split per platform goes through two approvals, as the seed's
// does: one for the platform jobs' push, one for the publish job. The scan job, which
// holds no credential, scans each platform job's images by their digests before any index
// exists (ScanPlatformsJob); the publish job assembles the indexes (AssembleJob), then
// takes the scan's verdicts for them when they cover every platform image each index
// lists, by digest (PublishPlatformScans).

// PlatformScans is what the scan job prints after scanning the platform jobs' images: the
// release, and a verdict per platform image, named as an index's platform images are
// ("filer (linux/arm64)").
type PlatformScans struct {
	Repo    string       `json:"repo"`
	Tag     string       `json:"tag"`
	Version string       `json:"version"`
	Commit  string       `json:"commit"`
	Scans   []ScanRecord `json:"platform_scans"`
}

// JSON renders the verdicts on one line, as a job output.
func (p PlatformScans) JSON() (string, error) {
	return Handoff{Repo: p.Repo, Tag: p.Tag, Version: p.Version, Commit: p.Commit}.jsonOf(p)
}

// ParsePlatformScans reads what the scan job printed for the platform jobs' images.
func ParsePlatformScans(data string) (PlatformScans, error) {
	var p PlatformScans
	if err := decodeHandoff(data, &p, "the scan job"); err != nil {
		return PlatformScans{}, err
	}
	switch {
	case p.Tag == "" || p.Version == "" || p.Repo == "":
		return PlatformScans{}, errors.New("the scan job's verdicts name no repository, tag or version")
	case !commitRE.MatchString(p.Commit):
		return PlatformScans{}, fmt.Errorf("the scan job's commit %q is not a full commit SHA", p.Commit)
	case len(p.Scans) == 0:
		return PlatformScans{}, errors.New("the scan job's output holds no verdict")
	}
	return p, nil
}

// platformImages are the platform jobs' images, each a single image named as an index's
// platform image is; every part must be of the same release, and no platform twice.
func platformImages(parts []publish.PlatformHandoff) (Handoff, []publish.Pushed, error) {
	if len(parts) == 0 {
		return Handoff{}, nil, errors.New("no platform job's output given")
	}
	first := handoffOf(parts[0])
	seen := map[string]bool{}
	var out []publish.Pushed
	for _, part := range parts {
		h := handoffOf(part)
		switch {
		case h.Repo != first.Repo || h.Tag != first.Tag || h.Version != first.Version || h.Commit != first.Commit:
			return Handoff{}, nil, fmt.Errorf("the %s push is of %s %s (commit %s), the %s push of %s %s (commit %s)",
				part.Platform, h.Repo, h.Tag, h.Commit, parts[0].Platform, first.Repo, first.Tag, first.Commit)
		case seen[part.Platform]:
			return Handoff{}, nil, fmt.Errorf("platform %s is given twice", part.Platform)
		}
		seen[part.Platform] = true
		for _, img := range part.Images {
			out = append(out, publish.Pushed{Name: buildplatform.TargetName(img.Name, dagger.Platform(part.Platform)),
				Repository: img.Repository, Digest: img.Digest})
		}
	}
	return first, out, nil
}

// ScanPlatformsJob scans the platform jobs' images, each by its digest and anonymously,
// with the Trivy and under the .trivyignore.yaml of their commit (source): the scan job of
// a release pushed per platform, which runs before the indexes are assembled. It holds no
// credential.
func ScanPlatformsJob(ctx context.Context, cfg Config, parts []publish.PlatformHandoff) (PlatformScans, *dagger.Directory, error) {
	h, images, err := platformImages(parts)
	if err != nil {
		return PlatformScans{}, nil, flow.Advise(err, "pass the platform push jobs' output of this tag on unchanged")
	}
	s := newState(cfg, h.Tag)
	s.plan, s.handoff = h.plan(), h
	s.images.Pushed = images
	_, err = s.run(ctx, platformScanJobSteps(), false)
	out := PlatformScans{Repo: h.Repo, Tag: h.Tag, Version: h.Version, Commit: h.Commit, Scans: s.scanRecords()}
	return out, s.images.Reports, err
}

// platformScanJobSteps fetch the tagged commit the platform jobs pushed (its pins and
// ignore file), then scan their platform images.
func platformScanJobSteps() []flow.Step[releaseState] {
	return append([]flow.Step[releaseState]{sourceStep}, imageSteps(StepScan)...)
}

// PublishPlatformScans is the publish job of a release pushed per platform: the scan
// job's verdicts on the platform images become those of the indexes the assemble job
// pushed (pushed, its output), which the publish job then checks like any handoff: every
// platform image each index lists needs a passing verdict on its very digest.
func PublishPlatformScans(ctx context.Context, cfg Config, scans PlatformScans, pushed Handoff) (Report, error) {
	if scans.Repo != pushed.Repo || scans.Tag != pushed.Tag || scans.Version != pushed.Version || scans.Commit != pushed.Commit {
		return Report{}, flow.Advise(fmt.Errorf("the scan job's verdicts are for %s %s (commit %s), the assembled indexes for %s %s (commit %s)",
			scans.Repo, scans.Tag, scans.Commit, pushed.Repo, pushed.Tag, pushed.Commit),
			"pass the scan job's and the assemble step's output of this tag on unchanged")
	}
	h := pushed
	h.Scans = scans.Scans
	return PublishJob(ctx, cfg, h, pushed)
}
