package release

import (
	"context"
	"dagger/shipyard/internal/buildplatform"
	"slices"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/releasegate"
)

// Options adjust a run.
type Options struct {
	// DryRun stops after the side-effect-free steps: the plan, the builds, the version
	// check, the scan of the built containers and the release body. Nothing is pushed,
	// tagged or created.
	DryRun bool
}

// Stop ends a run before the step named Before, for Reason. In a report, After lists the
// steps that passed before it.
type Stop struct {
	Before string   `json:"before"`
	Reason string   `json:"reason"`
	After  []string `json:"after,omitempty"`
}

// prepareSteps are the steps before anything is published: release-plan, the source at the
// tagged commit, both builds and the version check.
func prepareSteps() []flow.Step[releaseState] {
	return []flow.Step[releaseState]{planStep, sourceStep, buildStep, versionStep}
}

// releaseSteps are the whole release: the steps before publishing, the release body
// (composed before anything is published, so a token that cannot generate notes stops the
// release before the push), publish's image steps (push by digest, scan, attest, sign,
// verify, tag), then the GitHub release. A dry run computes the digests a push would give,
// scans the built containers instead of pushed digests, and stops before attest.
func releaseSteps() []flow.Step[releaseState] {
	return slices.Concat(prepareSteps(), []flow.Step[releaseState]{notesStep(nextNothingPublished)}, imageSteps(),
		[]flow.Step[releaseState]{publishReleaseStep})
}

// Run releases tag: release-plan, the source at the tagged commit, both builds, the version
// check, push by digest, the scan of those digests, attest, sign, tag, and the GitHub
// release. It returns the report of what was done, also when a step fails (Failed names
// it), with the step's error.
func Run(ctx context.Context, cfg Config, tag string, opts Options) (Report, error) {
	r := cfg.runner(tag, opts.DryRun)
	r.StopBefore = cfg.Stop.Before
	s := newState(cfg, tag)
	ran, err := flow.Run(ctx, r, releaseSteps(), s)
	rep := s.reportAfter(err, opts.DryRun)
	if err == nil && cfg.Stop.Before != "" {
		rep.Stopped = cfg.Stop
		rep.Stopped.After = ran
	}
	return rep, err
}

// builtDigests is push-by-digest on a dry run: the digests a push would give, when a
// registry tool is given to compute them with.
func builtDigests(ctx context.Context, s *releaseState) error {
	if s.cfg.Images.Target.RegistryTool == nil {
		return nil
	}
	var err error
	s.builtDigests, err = BuiltDigests(ctx, s.cfg, s.images.Built)
	return err
}

// BuiltDigests reads the digest of each built image's manifest as the registry command
// reads it from the image's OCI tarball, which is what push-by-digest would push, without
// pushing; for a multi-platform image,
// the digest of the index it would push and of each platform image.
func BuiltDigests(ctx context.Context, cfg Config, images []publish.Artifact) (map[string]publish.Pushed, error) {
	built := make([]publish.Pushed, len(images))
	err := fanout.Each(ctx, 0, len(images), func(ctx context.Context, i int) error {
		var err error
		built[i], err = publish.BuiltDigest(ctx, cfg.Images.Target, images[i])
		return err
	})
	out := map[string]publish.Pushed{}
	for i, a := range images {
		if built[i].Digest != "" {
			out[a.Name] = built[i]
		}
	}
	return out, err
}

// plannedImages starts the report's images from the builds: each under the repository it
// is published to, with the tags the plan gives it.
func plannedImages(cfg Config, plan releasegate.Plan, images []publish.Artifact) []ImageReport {
	out := make([]ImageReport, 0, len(images))
	for _, a := range images {
		r := ImageReport{Name: a.Name, Repository: a.Repository}
		if cfg.Images.Target.Registry != "" && cfg.Images.Target.Org != "" {
			r.Repository = cfg.Images.Target.Repository(a)
		}
		for _, pi := range plan.Images {
			if pi.Name == a.Repository {
				r.Tags = slices.Clone(pi.Tags)
			}
		}
		out = append(out, r)
	}
	return out
}

// imageNamed is the report's image of that name, or nil.
func (r *Report) imageNamed(name string) *ImageReport {
	for i := range r.Images {
		if r.Images[i].Name == name {
			return &r.Images[i]
		}
	}
	return nil
}

// target finds what a scan or evidence names: an image ("filer"), or one platform's image
// of it ("filer (linux/arm64)"), then also returned.
func (r *Report) target(name string) (*ImageReport, *PlatformReport) {
	if img := r.imageNamed(name); img != nil {
		return img, nil
	}
	for i := range r.Images {
		img := &r.Images[i]
		for j := range img.Platforms {
			if buildplatform.TargetName(img.Name, dagger.Platform(img.Platforms[j].Platform)) == name {
				return img, &img.Platforms[j]
			}
		}
	}
	return nil, nil
}

// setDigest records where img is (to be) published; a multi-platform image's platform
// images too.
func (img *ImageReport) setDigest(p publish.Pushed) {
	img.Digest, img.Platforms = p.Digest, nil
	for _, pd := range p.Platforms {
		img.Platforms = append(img.Platforms, PlatformReport{Platform: pd.Platform, Digest: pd.Digest})
	}
}

func (r *Report) addScans(scans []ScanRecord) {
	for _, s := range scans {
		switch img, plat := r.target(s.Name); {
		case plat != nil:
			plat.Scan = s
		case img != nil:
			img.Scan = s
		}
	}
	for i := range r.Images {
		if img := &r.Images[i]; len(img.Platforms) > 0 {
			img.Scan = platformsVerdict(img)
		}
	}
}

// platformsVerdict is the verdict on every platform image together: passed when each was
// scanned and passed.
func platformsVerdict(img *ImageReport) ScanRecord {
	if !slices.ContainsFunc(img.Platforms, func(p PlatformReport) bool { return p.Scan.Name != "" }) {
		return ScanRecord{} // nothing scanned yet
	}
	v := ScanRecord{Name: img.Name, Digest: img.Digest, Passed: true}
	var summaries []string
	for _, p := range img.Platforms {
		if p.Scan.Name == "" {
			v.Passed = false
			summaries = append(summaries, p.Platform+": not scanned")
			continue
		}
		v.Passed = v.Passed && p.Scan.Passed
		summaries = append(summaries, p.Platform+": "+p.Scan.Summary)
	}
	v.Summary = strings.Join(summaries, "; ")
	return v
}

func (r *Report) addEvidence(ev []publish.Evidence) {
	for _, e := range ev {
		img, plat := r.target(e.Name)
		if img == nil {
			continue
		}
		ref := img.Repository + "@" + e.Referrer
		sig, att, sbom := &img.Signature, &img.Attestation, &img.SBOM
		if plat != nil {
			sig, att, sbom = &plat.Signature, &plat.Attestation, &plat.SBOM
		}
		switch e.Kind {
		case publish.KindSignature:
			*sig = ref
		case publish.KindAttestation:
			*att = ref
		case publish.KindSBOM:
			*sbom = ref
		}
	}
}

// addTags records each image's tags, latest (the policy's latest tag) last, and why latest
// was left where it was.
func (r *Report) addTags(latest string, applied []publish.ApplyReport) {
	for _, a := range applied {
		for i := range r.Images {
			if r.Images[i].Repository != a.Image {
				continue
			}
			var tags []string
			for _, t := range append(slices.Clone(a.Written), a.Kept...) {
				tags = append(tags, t.Tag)
			}
			slices.SortFunc(tags, func(x, y string) int { return tagOrder(latest, x) - tagOrder(latest, y) })
			r.Images[i].Tags = tags
			for _, s := range a.Skipped {
				if s.Tag == latest {
					r.Images[i].LatestSkipped = s.Reason
				}
			}
		}
	}
}

// tagOrder lists the version before latest, as the plan does.
func tagOrder(latest, tag string) int {
	if tag == latest {
		return 1
	}
	return 0
}
