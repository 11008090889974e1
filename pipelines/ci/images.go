package ci

import (
	"context"
	"fmt"
	"strings"

	"dagger.io/dagger"
)

// Image is one built image of the project. The same Container object feeds the scan, the
// end-to-end tests and publishing, so the engine builds each image once.
type Image struct {
	Spec ImageSpec
	// Version is the SETUPTOOLS_SCM_PRETEND_VERSION given to the build; empty when
	// setuptools_scm derives it from the Git history in the source.
	Version string
	// Container is the image for the engine's platform, or the first of Variants.
	Container *dagger.Container
	// Variants are the image built for each of the pipeline's Platforms, in their order;
	// none when the pipeline names no platform. They are published as one image index.
	Variants []Variant
}

// Variant is an image built for one platform.
type Variant struct {
	Platform  dagger.Platform
	Container *dagger.Container
}

// Images builds every containers/<name>.Dockerfile from the root of the source, which is the
// build context tesk-core documents. version is the package version without v, or empty.
func (p *Pipeline) Images(ctx context.Context, version string) ([]Image, error) {
	entries, err := p.Source.Directory("containers").Entries(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing containers/: %w", err)
	}
	specs, err := DiscoverImages(entries, p.ImagePrefix)
	if err != nil {
		return nil, err
	}
	hasGit, err := p.Source.Exists(ctx, ".git")
	if err != nil {
		return nil, fmt.Errorf("looking for .git: %w", err)
	}
	value, set, err := ImageVersion(version, hasGit)
	if err != nil {
		return nil, err
	}
	var args []dagger.BuildArg
	if set {
		// The history is not read when the version is given: keeping it out keeps the
		// build cached across commits that do not touch the image's inputs.
		args = append(args, dagger.BuildArg{Name: "SETUPTOOLS_SCM_PRETEND_VERSION", Value: value})
	}
	context := p.imageContext(!set)
	images := make([]Image, 0, len(specs))
	for _, s := range specs {
		img := Image{Spec: s, Version: value}
		for _, platform := range p.Platforms {
			img.Variants = append(img.Variants, Variant{Platform: platform, Container: context.DockerBuild(dagger.DirectoryDockerBuildOpts{
				Dockerfile: s.Dockerfile,
				BuildArgs:  args,
				Platform:   platform,
			})})
		}
		if len(img.Variants) > 0 {
			img.Container = img.Variants[0].Container
		} else {
			img.Container = context.DockerBuild(dagger.DirectoryDockerBuildOpts{
				Dockerfile: s.Dockerfile,
				BuildArgs:  args,
			})
		}
		images = append(images, img)
	}
	return images, nil
}

// ImageNamed builds the one image whose name (its Dockerfile's stem: taskmaster, filer) is
// given, so it can be run, published or exported alone.
func (p *Pipeline) ImageNamed(ctx context.Context, name, version string) (Image, error) {
	images, err := p.Images(ctx, version)
	if err != nil {
		return Image{}, err
	}
	var names []string
	for _, img := range images {
		if img.Spec.Name == name {
			return img, nil
		}
		names = append(names, img.Spec.Name)
	}
	return Image{}, fmt.Errorf("image --name %q: no containers/%s.Dockerfile; the images are %s", name, name, strings.Join(names, ", "))
}
