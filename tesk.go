package main

import (
	"context"

	"dagger/shipyard/pipelines/ci"
)

// tesk-core's pipeline as a call builds it: the project, its pins and its images.

// pipeline connects the CI graph to the session with this module's source and image pins,
// at this call's trust level.
func (m *Shipyard) pipeline(ctx context.Context, pythonImages []string) (*ci.Pipeline, error) {
	level, err := m.level(ctx)
	if err != nil {
		return nil, err
	}
	c, src, err := m.sessionSource(ctx)
	if err != nil {
		return nil, err
	}
	if err := ci.CheckCallerTree(ctx, src); err != nil {
		return nil, err
	}
	p := ci.New(c, src).AtTrust(level)
	if p.Pins, err = m.treePins(ctx, src); err != nil {
		return nil, err
	}
	if p.Pins, err = p.Pins.WithPythonImages(pythonImages); err != nil {
		return nil, err
	}
	if p.Platforms, err = m.platformsOf(); err != nil {
		return nil, err
	}
	return p, nil
}

// images connects the pipeline and builds (lazily) the project's images, for the
// platforms platformsOf gives this call.
func (m *Shipyard) images(ctx context.Context, version string) (*ci.Pipeline, []ci.Image, error) {
	p, err := m.pipeline(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	return imagesOf(ctx, p, version)
}

func imagesOf(ctx context.Context, p *ci.Pipeline, version string) (*ci.Pipeline, []ci.Image, error) {
	images, err := p.Images(ctx, version)
	if err != nil {
		return nil, nil, err
	}
	return p, images, nil
}
