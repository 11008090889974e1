package main

import (
	"context"
	"fmt"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/checkscope"
	"dagger/shipyard/pipelines/ci"
)

// teskCheckSkipped is the message of this call's check of tesk-core skipped on the
// module's source, a Cloudcoil model repository (Shipyard installed there as a toolchain),
// or "" when the check runs (checkscope.TeskSkipped decides).
func (m *Shipyard) teskCheckSkipped(ctx context.Context) (string, error) {
	_, src, err := m.sessionSource(ctx)
	if err != nil {
		return "", err
	}
	data, err := pyprojectOf(ctx, src)
	if err != nil {
		return "", err
	}
	return checkscope.TeskSkipped(m.fn, data), nil
}

// teskCheckImages is the pipeline and both images for a check of tesk-core's images, or
// the message of the check skipped (teskCheckSkipped) and no images.
func (m *Shipyard) teskCheckImages(ctx context.Context) (skip string, _ *ci.Pipeline, _ []ci.Image, err error) {
	if skip, err := m.teskCheckSkipped(ctx); skip != "" || err != nil {
		return skip, nil, nil, err
	}
	p, images, err := m.images(ctx, "")
	return "", p, images, err
}

// pyprojectOf is src's pyproject.toml, nil when it has none.
func pyprojectOf(ctx context.Context, src *sdk.Directory) ([]byte, error) {
	exists, err := src.Exists(ctx, "pyproject.toml")
	if err != nil || !exists {
		return nil, err
	}
	text, err := src.File("pyproject.toml").Contents(ctx)
	if err != nil {
		return nil, fmt.Errorf("source: pyproject.toml: %w", err)
	}
	return []byte(text), nil
}

// notModelRepository is the message of this call's check skipped on src, or "" when src is
// a model repository and the check runs (checkscope.ModelSkipped decides).
func (m *Shipyard) notModelRepository(ctx context.Context, src *sdk.Directory) (string, error) {
	data, err := pyprojectOf(ctx, src)
	if err != nil {
		return "", err
	}
	return checkscope.ModelSkipped(m.fn, data)
}
