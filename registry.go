package main

import (
	"context"
	"fmt"

	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/ci/artifact"
	"dagger/shipyard/pipelines/publish"
)

// Where a call publishes: the registry target, its login, and the images it names there.

// target is where the constructor says images go, with the registry password kept as a
// secret for the containers that talk to the registry (it is never read here), and the
// registry command built for this call.
func (m *Shipyard) target(ctx context.Context) (publish.Target, error) {
	c, err := m.session(ctx)
	if err != nil {
		return publish.Target{}, err
	}
	password, err := toSDKSecret(ctx, c, m.RegistryPassword)
	if err != nil {
		return publish.Target{}, fmt.Errorf("--registry-password: %w", err)
	}
	t, err := m.publicTarget(ctx)
	if err != nil {
		return publish.Target{}, err
	}
	t.Username, t.Password = m.RegistryUsername, password
	// Checked once, here, for every function that writes there: before anything is built.
	return t, publish.CheckInputs(t, nil)
}

// publicTarget is where images go, without any login: what a credential-free step names,
// with the registry command built for this call.
func (m *Shipyard) publicTarget(ctx context.Context) (publish.Target, error) {
	tool, err := m.registryTool(ctx)
	if err != nil {
		return publish.Target{}, err
	}
	return publish.Target{Registry: m.Registry, Org: m.Org, RegistryTool: tool, Tags: artifact.Tags()}, nil
}

// pushed reads the handoff push-by-digest printed (image name → reference by digest), for
// images in t, with the platform images of each index read from the registry. It may name
// some of the images: a job per image passes only its own (push-by-digest --image prints
// one), and the step then handles exactly the images named. Nothing is built to name them.
func (m *Shipyard) pushed(ctx context.Context, digests string, t publish.Target) ([]publish.Pushed, error) {
	pushed, err := publish.ParseRefs(digests, t)
	if err != nil {
		return nil, fmt.Errorf("--digests: %w", err)
	}
	// A digest may be a multi-platform image's index: its platform images are scanned,
	// attested and signed too, as the registry lists them.
	if pushed, err = publish.ResolvePlatforms(ctx, t, pushed); err != nil {
		return nil, fmt.Errorf("--digests: %w", err)
	}
	return pushed, nil
}

// withLogin is pushed for the steps that write: the images and the target with its login.
func (m *Shipyard) withLogin(ctx context.Context, digests string) ([]publish.Pushed, publish.Target, error) {
	t, err := m.target(ctx)
	if err != nil {
		return nil, publish.Target{}, err
	}
	pushed, err := m.pushed(ctx, digests, t)
	return pushed, t, err
}

// namedImage narrows images to the one --image names; none named keeps every image.
func namedImage(ctx context.Context, p *ci.Pipeline, images []ci.Image, version, image string) ([]ci.Image, error) {
	if image == "" {
		return images, nil
	}
	img, err := p.ImageNamed(ctx, image, version)
	if err != nil {
		return nil, err
	}
	return []ci.Image{img}, nil
}

// commitImages are what both halves of the dev split work on: the images (only image, when
// given), the commit of the source they were built from, and where they are pushed.
func (m *Shipyard) commitImages(ctx context.Context, p *ci.Pipeline, images []ci.Image, version, image string) ([]ci.Image, string, publish.Target, error) {
	images, err := namedImage(ctx, p, images, version, image)
	if err != nil {
		return nil, "", publish.Target{}, err
	}
	commit, err := publish.SourceCommit(ctx, p.Source)
	if err != nil {
		return nil, "", publish.Target{}, err
	}
	t, err := m.target(ctx)
	if err != nil {
		return nil, "", publish.Target{}, err
	}
	return images, commit, t, nil
}
