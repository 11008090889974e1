package main

import (
	"context"
	"fmt"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/checkscope"
)

// notModelRepository is the message of a Cloudcoil model check skipped on src, or "" when
// src is a model repository and the check runs.
func notModelRepository(ctx context.Context, src *sdk.Directory) (string, error) {
	var data []byte
	exists, err := src.Exists(ctx, "pyproject.toml")
	if err != nil {
		return "", fmt.Errorf("source: %w", err)
	}
	if exists {
		text, err := src.File("pyproject.toml").Contents(ctx)
		if err != nil {
			return "", fmt.Errorf("source: pyproject.toml: %w", err)
		}
		data = []byte(text)
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
