package release

import (
	"context"
	"fmt"
	"strings"

	"dagger/shipyard/internal/flow"
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

// stillLatest is the GitHub half of the recheck before latest moves, asked right before
// the registry command: GitHub's published releases are read again (none may be higher),
// and the git tags, whose higher final versions the command looks for in the registry
// right before it writes (a release whose images are out while its GitHub release is not
// yet).
func stillLatest(cfg Config, tag string) publish.StillLatest {
	return func(ctx context.Context) (bool, []string, error) {
		owner, name, err := cfg.owner()
		if err != nil {
			return false, nil, err
		}
		published, err := cfg.publishedReleases(ctx)
		if err != nil {
			return false, nil, fmt.Errorf("re-reading the releases: %w", err)
		}
		gitTags, err := cfg.GitHub.TagNames(ctx, owner, name)
		if err != nil {
			return false, nil, fmt.Errorf("re-reading the tags: %w", err)
		}
		ok, err := StillLatestAmong(tag, published, nil)
		if err == nil && !ok {
			flow.Logf(ctx, "a higher release was published since the plan; latest stays where it is")
		}
		return ok, HigherFinalVersions(tag, gitTags), err
	}
}
