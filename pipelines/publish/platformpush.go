package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"dagger/shipyard/internal/buildplatform"

	"dagger.io/dagger"
)

// Images built per platform, each on a runner of that platform so that nothing is
// emulated: each platform job pushes its platform's images by digest as single images
// (PushPlatform), and one job then assembles each image's index from them (Images.Assemble),
// the index a push of every platform in one job gives. Both a push to dev and a release
// hand over one PlatformHandoff per platform job; the release's also names the release.

// CheckPlatform refuses a platform job's platform that is not one the images are published
// for: its images would be in no index.
func CheckPlatform(platform dagger.Platform, publishes []dagger.Platform) error {
	if !slices.Contains(publishes, platform) {
		return InputErrorf("%s %s is not one the images are published for (%s); pass one of them, or set %s", InputPlatform, platform, platformList(publishes), InputPlatforms)
	}
	return nil
}

func platformList(ps []dagger.Platform) string {
	if len(ps) == 0 {
		return "none: one image for the engine's platform"
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return strings.Join(out, ", ")
}

// PushPlatform pushes images built for platform alone (one variant each) by digest,
// untagged, as single images: what a platform job pushes is a platform image, which only
// the assemble job lists in an index. t is checked (CheckInputs) when the run is built.
func PushPlatform(ctx context.Context, images []Artifact, platform dagger.Platform, t Target) (PlatformPush, error) {
	single := make([]Artifact, len(images))
	for i, a := range images {
		if len(a.Platforms) != 1 || a.Platforms[0].Platform != platform {
			return PlatformPush{}, fmt.Errorf("%s: built for %d platform(s), want %s alone", a.Name, len(a.Platforms), platform)
		}
		a.Image, a.Platforms = a.Platforms[0].Image, nil
		single[i] = a
	}
	// The body of a push by digest, of a release job's step or a function that checked t.
	pushed, err := pushAll(ctx, single, t)
	if err != nil {
		return PlatformPush{}, err
	}
	return PlatformPush{Platform: string(platform), Images: pushed}, nil
}

// ParsePlatformOutputs reads the platform jobs' outputs, given as one JSON array (a list of
// strings cannot carry JSON through the dagger CLI, which reads lists as CSV), each element
// with parse.
func ParsePlatformOutputs[T any](data string, parse func(string) (T, error)) ([]T, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(data), &raw); err != nil {
		return nil, fmt.Errorf("want a JSON array of the platform push jobs' outputs, [<one job's>,<another's>]: %w", err)
	}
	if len(raw) == 0 {
		return nil, errors.New("the array lists no platform push job's output")
	}
	out := make([]T, len(raw))
	for i, r := range raw {
		var err error
		if out[i], err = parse(string(r)); err != nil {
			return nil, fmt.Errorf("element %d: %w", i+1, err)
		}
	}
	return out, nil
}

// PlatformHandoff is what one platform's push job prints and the assemble job reads, for a
// push to dev (push-platform-by-digest, then assemble-index) and for a release
// (release-push-platform, then release-assemble) alike: the commit the images were built
// from, the version given to the build (none: setuptools_scm read it from the commit's
// history), and the platform's images by digest. A release's also names its repository
// and tag, which a push to dev has none of.
type PlatformHandoff struct {
	Repo    string `json:"repo,omitempty"`
	Tag     string `json:"tag,omitempty"`
	Version string `json:"version,omitempty"`
	Commit  string `json:"commit"`
	PlatformPush
}

// OfRelease is whether the handoff names a release (release-push-platform printed it).
func (p PlatformHandoff) OfRelease() bool { return p.Repo != "" || p.Tag != "" }

// JSON renders the push on one line, as a job output.
func (p PlatformHandoff) JSON() (string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("rendering the platform push: %w", err)
	}
	return string(b) + "\n", nil
}

// ParsePlatformHandoff reads what one platform's push job printed and checks its form: a
// platform, a full commit SHA, and at least one image by digest. Whether it is of the
// assembling job's source or release is the assembling job's check.
func ParsePlatformHandoff(data string) (PlatformHandoff, error) {
	var p PlatformHandoff
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return PlatformHandoff{}, fmt.Errorf("reading the output of a platform's push job: %w", err)
	}
	if _, err := buildplatform.Parse([]string{p.Platform}); err != nil {
		return PlatformHandoff{}, fmt.Errorf("the platform push's platform: %w", err)
	}
	if !commitRE.MatchString(p.Commit) {
		return PlatformHandoff{}, fmt.Errorf("the %s push's commit %q is not a full commit SHA", p.Platform, p.Commit)
	}
	if len(p.Images) == 0 {
		return PlatformHandoff{}, fmt.Errorf("the %s push lists no image", p.Platform)
	}
	for _, img := range p.Images {
		if err := img.Check(); err != nil {
			return PlatformHandoff{}, fmt.Errorf("the %s push: %w", p.Platform, err)
		}
	}
	return p, nil
}

// CheckPlatformHandoffs checks that the platform pushes are of the assembling job's source:
// built from commit with version, each listing exactly images (the images of the source,
// or the one --image names), each in its repository of t. Which platforms were handed over,
// and whether each image is for its platform, is checked by the assembly itself
// (PlanIndexes, AssembleIndexes). It returns the pushes to assemble.
func CheckPlatformHandoffs(commit, version string, images []Artifact, t Target, parts []PlatformHandoff) ([]PlatformPush, error) {
	want := make(map[string]string, len(images))
	for _, a := range images {
		want[a.Name] = t.Repository(a)
	}
	names := strings.Join(slices.Sorted(maps.Keys(want)), ", ")
	var errs []error
	pushes := make([]PlatformPush, len(parts))
	for i, part := range parts {
		pushes[i] = part.PlatformPush
		if part.OfRelease() {
			errs = append(errs, fmt.Errorf("the %s push is of release %s %s: assemble it with release-assemble", part.Platform, part.Repo, part.Tag))
			continue
		}
		if part.Commit != commit {
			errs = append(errs, fmt.Errorf("the %s push is of commit %s, this source is at %s", part.Platform, part.Commit, commit))
		}
		if part.Version != version {
			errs = append(errs, fmt.Errorf("the %s push was built with version %q, this job with %q", part.Platform, part.Version, version))
		}
		listed := map[string]bool{}
		for _, img := range part.Images {
			repo, ok := want[img.Name]
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("the %s push lists image %s, which this job does not assemble (%s)", part.Platform, img.Name, names))
			case img.Repository != repo:
				errs = append(errs, fmt.Errorf("the %s push put image %s in %s, but it is published to %s", part.Platform, img.Name, img.Repository, repo))
			}
			listed[img.Name] = true
		}
		for _, name := range slices.Sorted(maps.Keys(want)) {
			if !listed[name] {
				errs = append(errs, fmt.Errorf("the %s push lacks image %s", part.Platform, name))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return pushes, nil
}
