package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/wire"
)

// StepAssemble is the step that builds each image's index from the platform images the
// platform jobs pushed, and pushes it by digest.
const StepAssemble = functions.AssembleIndex

// PlatformPush is what one platform's push job pushed: each image's image for that
// platform, by digest and untagged, in the repository it is published to.
type PlatformPush struct {
	Platform string   `json:"platform"`
	Images   []Pushed `json:"images"`
}

// IndexAssembly is one image's index to assemble: its platform images, in the order of the
// configured platforms, as the registry command's assemble reads it.
type IndexAssembly = wire.Assembly

// PlanIndexes pairs the platform jobs' pushes into one index per image. Every configured
// platform must have been pushed exactly once and no other; every push must list the same
// images, each once, in the same repository, each a single image by digest. The indexes
// list the platforms in the configured order, as the single job that builds every platform
// does, so both publish the same index of the same images.
func PlanIndexes(platforms []string, pushes []PlatformPush) ([]IndexAssembly, error) {
	if len(platforms) == 0 {
		return nil, errors.New("no platforms configured: an index needs at least one")
	}
	byPlatform := map[string]PlatformPush{}
	var errs []error
	for _, p := range pushes {
		switch {
		case !slices.Contains(platforms, p.Platform):
			errs = append(errs, fmt.Errorf("a push for %q was handed over, but the images are published for %s", p.Platform, strings.Join(platforms, ", ")))
		case byPlatform[p.Platform].Platform != "":
			errs = append(errs, fmt.Errorf("%s was pushed twice: hand over each platform job's output once", p.Platform))
		default:
			byPlatform[p.Platform] = p
		}
	}
	for _, pl := range platforms {
		if _, ok := byPlatform[pl]; !ok {
			errs = append(errs, fmt.Errorf("no push for %s was handed over: run its platform job, and hand over every platform job's output", pl))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	first := byPlatform[platforms[0]]
	plans := make([]IndexAssembly, 0, len(first.Images))
	index := map[string]int{}
	for _, img := range first.Images {
		if _, dup := index[img.Name]; dup {
			return nil, fmt.Errorf("%s: image %s is listed twice", platforms[0], img.Name)
		}
		index[img.Name] = len(plans)
		plans = append(plans, IndexAssembly{Name: img.Name, Repository: img.Repository})
	}
	for _, pl := range platforms {
		p := byPlatform[pl]
		seen := map[string]bool{}
		for _, img := range p.Images {
			i, ok := index[img.Name]
			switch {
			case img.Check() != nil:
				errs = append(errs, fmt.Errorf("%s: %w", pl, img.Check()))
			case len(img.Platforms) > 0:
				errs = append(errs, fmt.Errorf("%s: image %s was pushed as an index (%s); a platform job pushes one image per platform", pl, img.Name, img.Digest))
			case !ok:
				errs = append(errs, fmt.Errorf("%s pushed image %s, which %s did not", pl, img.Name, platforms[0]))
			case seen[img.Name]:
				errs = append(errs, fmt.Errorf("%s: image %s is listed twice", pl, img.Name))
			case img.Repository != plans[i].Repository:
				errs = append(errs, fmt.Errorf("%s pushed image %s to %s, %s to %s", pl, img.Name, img.Repository, platforms[0], plans[i].Repository))
			default:
				seen[img.Name] = true
				plans[i].Platforms = append(plans[i].Platforms, PlatformDigest{Platform: pl, Digest: img.Digest})
			}
		}
		for _, plan := range plans {
			if !seen[plan.Name] && len(errs) == 0 {
				errs = append(errs, fmt.Errorf("%s did not push image %s", pl, plan.Name))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(plans) == 0 {
		return nil, errors.New("the platform jobs pushed no image")
	}
	return plans, nil
}

// AssembleIndexes builds and pushes, by digest and untagged, the index of each plan from
// its platform images in the registry (each checked to be for the platform it is listed
// under), and returns what a push of every platform in one job returns. Every index is
// built before the first is pushed, so a refused image leaves the registry as it was.
func AssembleIndexes(ctx context.Context, t Target, plans []IndexAssembly) ([]Pushed, error) {
	if len(plans) == 0 {
		return nil, errors.New("no index to assemble")
	}
	list, err := json.Marshal(plans)
	if err != nil {
		return nil, err
	}
	var out []Pushed
	call := registryCall{cmd: "assemble", args: []string{"--indexes", string(list)}, about: plans[0].Repository}
	if err := t.runJSON(ctx, call, &out); err != nil {
		// The command names each image that failed first in its message.
		var failed []string
		for _, p := range plans {
			if strings.Contains(err.Error(), "registry assemble: "+p.Name+": ") || strings.Contains(err.Error(), "\n"+p.Name+": ") {
				failed = append(failed, p.Name)
			}
		}
		if len(failed) > 0 {
			return nil, fmt.Errorf("%s: %w (nothing was tagged; re-run the step)", strings.Join(failed, ", "), err)
		}
		return nil, fmt.Errorf("%w (nothing was tagged; re-run the step)", err)
	}
	if len(out) != len(plans) {
		return nil, fmt.Errorf("the registry command assembled %d of %d indexes", len(out), len(plans))
	}
	return out, nil
}

// Assemble is the push of a release built per platform: the indexes of the platform jobs'
// images, then the check that Version, if any, is on none of the repositories but on the
// index just pushed. What follows (scan, attest, sign, tag) is as after PushByDigest.
func (s *ImageState) Assemble(ctx context.Context, platforms []string, pushes []PlatformPush) error {
	plans, err := PlanIndexes(platforms, pushes)
	if err != nil {
		return err
	}
	pushed, err := AssembleIndexes(ctx, s.Target, plans)
	if err != nil {
		return err
	}
	return s.keepPushed(ctx, pushed)
}
