package main

import (
	"context"
	"fmt"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/checkscope"
)

// teskCheckSkipped is the message of tesk-core's check named check skipped on the
// module's source, a Cloudcoil model repository (Shipyard installed there as a toolchain),
// or "" when the check runs. A pyproject.toml that does not parse runs the check, which
// reports it.
func (m *Shipyard) teskCheckSkipped(ctx context.Context, check string) (string, error) {
	_, src, err := m.sessionSource(ctx)
	if err != nil {
		return "", err
	}
	data, err := pyprojectOf(ctx, src)
	if err != nil {
		return "", err
	}
	if model, _, err := checkscope.ModelRepository(data); err != nil || !model {
		return "", nil
	}
	return check + " skipped: the source is a Cloudcoil model repository, not tesk-core; tesk-core's checks have nothing to check here", nil
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

// notModelRepository is the message of a Cloudcoil model check skipped on src, or "" when
// src is a model repository and the check runs.
func notModelRepository(ctx context.Context, src *sdk.Directory) (string, error) {
	data, err := pyprojectOf(ctx, src)
	if err != nil {
		return "", err
	}
	ok, why, err := checkscope.ModelRepository(data)
	if err != nil {
		return "", fmt.Errorf("check-artifacts: %w", err)
	}
	if ok {
		return "", nil
	}
	return "check-artifacts skipped: the source is not a generated Cloudcoil model repository (" + why +
		"); this check builds a model package, so it has nothing to check in another project's repository", nil
}
