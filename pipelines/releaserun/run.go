package releaserun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"dagger/shipyard/internal/registry"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/release"
)

// Options adjust a run.
type Options struct {
	// DryRun stops after the side-effect-free steps: the plan, the builds, the version
	// check, the scan of the built containers and the release body. Nothing is pushed,
	// tagged or created.
	DryRun bool
}

// Run releases tag: release-plan, the source at the tagged commit, both builds, the version
// check, push by digest, the scan of those digests, attest, sign, tag, and the GitHub
// release. It returns the report of what was done, also when a step fails (Failed names
// it), with the step's error.
func Run(ctx context.Context, cfg Config, tag string, opts Options) (Report, error) {
	rep := Report{Repo: cfg.Repo, Tag: tag, DryRun: opts.DryRun}
	fail := func(err error) (Report, error) {
		rep.Failed = FailedStep(err)
		return rep, err
	}
	plan, err := Plan(ctx, cfg, tag)
	if err != nil {
		return fail(err)
	}
	rep.Version, rep.Commit = plan.Version, plan.Commit
	if !opts.DryRun {
		// Refuse a target the plan does not name before building anything.
		if err := cfg.Images.checkTarget(plan); err != nil {
			return fail(stepErr(StepPush, tag, nextNothingPublished, err))
		}
	}
	src, err := Source(ctx, cfg, plan)
	if err != nil {
		return fail(err)
	}
	p, images, err := Build(ctx, cfg, plan, src)
	if err != nil {
		return fail(err)
	}
	rep.Images = plannedImages(cfg, plan, images)
	if err := CheckVersions(ctx, cfg, plan, p, images); err != nil {
		return fail(err)
	}
	if opts.DryRun {
		return dryRun(ctx, cfg, plan, p, images, rep)
	}

	pushed, err := Push(ctx, cfg, plan, images)
	if err != nil {
		return fail(err)
	}
	for i := range rep.Images {
		rep.Images[i].Tags = nil
		for _, p := range pushed {
			if p.Name == rep.Images[i].Name {
				rep.Images[i].Repository, rep.Images[i].Digest = p.Repository, p.Digest
			}
		}
	}
	_, scans, err := Scan(ctx, cfg, plan, p, pushed)
	rep.addScans(scans)
	if err != nil {
		return fail(err)
	}
	attestations, err := Attest(ctx, cfg, plan, pushed, images)
	if err != nil {
		return fail(err)
	}
	rep.addEvidence(attestations)
	signatures, err := Sign(ctx, cfg, plan, pushed)
	if err != nil {
		return fail(err)
	}
	rep.addEvidence(signatures)
	if err := VerifySigned(ctx, cfg, plan, pushed, append(attestations, signatures...)); err != nil {
		return fail(err)
	}
	applied, err := Tag(ctx, cfg, plan, pushed)
	rep.addTags(applied)
	if err != nil {
		return fail(err)
	}
	body, err := ReleaseBody(ctx, cfg, plan)
	if err != nil {
		return fail(err)
	}
	rel, err := PublishRelease(ctx, cfg, plan, body)
	rep.Release = rel
	if err != nil {
		return fail(err)
	}
	return rep, nil
}

// dryRun finishes a run that publishes nothing: it scans the built containers, computes
// the digests that would be pushed (when a work directory is given) and the release body.
func dryRun(ctx context.Context, cfg Config, plan release.Plan, p *ci.Pipeline, images []ci.Image, rep Report) (Report, error) {
	fail := func(err error) (Report, error) {
		rep.Failed = FailedStep(err)
		return rep, err
	}
	_, scans, err := ScanBuilt(ctx, cfg, plan, p, images)
	rep.addScans(scans)
	if err != nil {
		return fail(err)
	}
	if cfg.Images.Workdir != "" {
		digests, err := BuiltDigests(ctx, cfg, images)
		if err != nil {
			return fail(stepErr(StepPush, plan.Tag, nextNothingPublished, err))
		}
		for i := range rep.Images {
			rep.Images[i].Digest = digests[rep.Images[i].Name]
		}
	}
	body, err := ReleaseBody(ctx, cfg, plan)
	if err != nil {
		return fail(err)
	}
	rep.Release = GitHubRelease{
		Tag: plan.Tag, Title: body.Title, Prerelease: plan.Prerelease, MakeLatest: plan.MakeLatest,
		Outcome: "planned", Body: body.Text,
	}
	return rep, nil
}

// BuiltDigests exports each built image as an OCI tarball and reads the digest its manifest
// has, which is what push-by-digest would push, without pushing.
func BuiltDigests(ctx context.Context, cfg Config, images []ci.Image) (map[string]string, error) {
	out := map[string]string{}
	var mu sync.Mutex
	errs := make([]error, len(images))
	var wg sync.WaitGroup
	for i, img := range images {
		wg.Go(func() {
			tarball := filepath.Join(cfg.Images.Workdir, img.Spec.Name+".dry-run.oci.tar")
			if _, err := img.Container.Export(ctx, tarball); err != nil {
				errs[i] = fmt.Errorf("image %s: exporting it: %w", img.Spec.Name, err)
				return
			}
			defer os.Remove(tarball)
			v1img, _, err := registry.OpenImage(tarball)
			if err != nil {
				errs[i] = fmt.Errorf("image %s: %w", img.Spec.Name, err)
				return
			}
			d, err := v1img.Digest()
			if err != nil {
				errs[i] = fmt.Errorf("image %s: digest: %w", img.Spec.Name, err)
				return
			}
			mu.Lock()
			out[img.Spec.Name] = d.String()
			mu.Unlock()
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// plannedImages starts the report's images from the builds: each under the repository it
// is published to, with the tags the plan gives it.
func plannedImages(cfg Config, plan release.Plan, images []ci.Image) []ImageReport {
	out := make([]ImageReport, 0, len(images))
	for _, img := range images {
		r := ImageReport{Name: img.Spec.Name, Repository: img.Spec.Repository}
		if cfg.Images.Target.Registry != "" && cfg.Images.Target.Org != "" {
			r.Repository = cfg.Images.Target.Repository(img)
		}
		for _, pi := range plan.Images {
			if pi.Name == img.Spec.Repository {
				r.Tags = slices.Clone(pi.Tags)
			}
		}
		out = append(out, r)
	}
	return out
}

func (r *Report) addScans(scans []ScanRecord) {
	for _, s := range scans {
		for i := range r.Images {
			if r.Images[i].Name == s.Name {
				r.Images[i].Scan = s
			}
		}
	}
}

func (r *Report) addEvidence(ev []publish.Evidence) {
	for _, e := range ev {
		for i := range r.Images {
			if r.Images[i].Name != e.Name {
				continue
			}
			ref := r.Images[i].Repository + "@" + e.Referrer
			switch e.Kind {
			case publish.KindSignature:
				r.Images[i].Signature = ref
			case publish.KindAttestation:
				r.Images[i].Attestation = ref
			}
		}
	}
}

func (r *Report) addTags(applied []registry.ApplyReport) {
	for _, a := range applied {
		for i := range r.Images {
			if r.Images[i].Repository != a.Image {
				continue
			}
			var tags []string
			for _, t := range append(slices.Clone(a.Written), a.Kept...) {
				tags = append(tags, t.Tag)
			}
			slices.SortFunc(tags, func(x, y string) int { return tagOrder(x) - tagOrder(y) })
			r.Images[i].Tags = tags
			for _, s := range a.Skipped {
				if s.Tag == registry.TagLatest {
					r.Images[i].LatestSkipped = s.Reason
				}
			}
		}
	}
}

// tagOrder lists the version before latest, as the plan does.
func tagOrder(tag string) int {
	if tag == registry.TagLatest {
		return 1
	}
	return 0
}
