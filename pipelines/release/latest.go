package release

import (
	"context"
	"fmt"
	"strings"

	"dagger/shipyard/internal/registry"
	"dagger/shipyard/internal/version"
	"dagger/shipyard/pipelines/publish"
)

// StillLatestAmong decides, immediately before latest moves, whether tag is still the
// highest final release: among the releases published on GitHub and the version tags
// already in the registry (a release whose images are out but whose GitHub release is not
// yet), none may be higher. Registry tags are versions without v; tags that are no release
// version are ignored.
func StillLatestAmong(tag string, githubReleases, registryTags []string) (bool, error) {
	all := append([]string(nil), githubReleases...)
	for _, t := range registryTags {
		if !strings.HasPrefix(t, "v") {
			t = "v" + t
		}
		all = append(all, t)
	}
	return version.IsLatest(tag, all)
}

// HigherFinalVersions lists the versions (without v) of the git tags that are final
// release versions above tag: the only versions whose images could hold latest instead.
func HigherFinalVersions(tag string, gitTags []string) []string {
	t, err := version.ParseReleaseTag(tag)
	if err != nil {
		return nil
	}
	var out []string
	for _, name := range gitTags {
		o, err := version.ParseReleaseTag(name)
		if err == nil && o.Final() && o.Compare(t) > 0 {
			out = append(out, o.Version())
		}
	}
	return out
}

// stillLatest is the recheck the tag step hands to the registry code, run right before
// latest is written: GitHub's published releases are read again, and the registry is asked
// for the images of every higher final version that has a git tag (a release whose images
// are out while its GitHub release is not yet).
func stillLatest(cfg Config, tag string, images *publish.ImageState) registry.StillLatest {
	return func(ctx context.Context) (bool, error) {
		owner, name, err := cfg.owner()
		if err != nil {
			return false, err
		}
		published, err := cfg.publishedReleases(ctx)
		if err != nil {
			return false, fmt.Errorf("re-reading the releases: %w", err)
		}
		gitTags, err := cfg.GitHub.TagNames(ctx, owner, name)
		if err != nil {
			return false, fmt.Errorf("re-reading the tags: %w", err)
		}
		var inRegistry []string
		if higher := HigherFinalVersions(tag, gitTags); len(higher) > 0 {
			for _, p := range images.Pushed {
				found, err := registry.ResolveTags(ctx, p.Repository, higher, cfg.Images.Target.Auth, cfg.Images.Target.RegistryOptions...)
				if err != nil {
					return false, fmt.Errorf("re-reading the version tags of %s: %w", p.Repository, err)
				}
				for t := range found {
					inRegistry = append(inRegistry, t)
				}
			}
		}
		ok, err := StillLatestAmong(tag, published, inRegistry)
		if err == nil && !ok {
			cfg.logf("%s: a higher release was published since the plan; latest stays where it is", StepTag)
		}
		return ok, err
	}
}
