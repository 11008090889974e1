package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/dagger"
)

// The module receives the engine-generated types (internal/dagger); pipelines/ and models/
// build graphs with the published SDK. Both speak to the same session, so objects cross by ID.

var (
	sdkOnce   sync.Once
	sdkShared *sdk.Client
	sdkErr    error
)

// connectSDK joins the module's session with the published SDK; inside a module, Connect
// reads DAGGER_SESSION_PORT and DAGGER_SESSION_TOKEN. Tests replace it with a client of the
// engine double.
var connectSDK = func(ctx context.Context) (*sdk.Client, error) {
	sdkOnce.Do(func() { sdkShared, sdkErr = sdk.Connect(ctx) })
	return sdkShared, sdkErr
}

func sdkClient(ctx context.Context) (*sdk.Client, error) {
	c, err := connectSDK(ctx)
	if err != nil {
		return nil, fmt.Errorf("joining the Dagger session: %w", err)
	}
	return c, nil
}

func toSDKDirectory(ctx context.Context, c *sdk.Client, d *dagger.Directory) (*sdk.Directory, error) {
	if d == nil {
		return nil, fmt.Errorf("no directory given")
	}
	id, err := d.ID(ctx)
	if err != nil {
		return nil, fmt.Errorf("directory id: %w", err)
	}
	return c.LoadDirectoryFromID(sdk.DirectoryID(id)), nil
}

func toSDKSecret(ctx context.Context, c *sdk.Client, s *dagger.Secret) (*sdk.Secret, error) {
	if s == nil {
		return nil, nil
	}
	id, err := s.ID(ctx)
	if err != nil {
		return nil, fmt.Errorf("secret id: %w", err)
	}
	return c.LoadSecretFromID(sdk.SecretID(id)), nil
}

func fromSDKDirectory(ctx context.Context, d *sdk.Directory) (*dagger.Directory, error) {
	id, err := d.ID(ctx)
	if err != nil {
		return nil, err
	}
	return dag.LoadDirectoryFromID(dagger.DirectoryID(id)), nil
}

func fromSDKContainer(ctx context.Context, c *sdk.Container) (*dagger.Container, error) {
	id, err := c.ID(ctx)
	if err != nil {
		return nil, err
	}
	return dag.LoadContainerFromID(dagger.ContainerID(id)), nil
}

func fromSDKFile(ctx context.Context, f *sdk.File) (*dagger.File, error) {
	id, err := f.ID(ctx)
	if err != nil {
		return nil, err
	}
	return dag.LoadFileFromID(dagger.FileID(id)), nil
}

// plaintext reads a secret's value into memory, for API clients that need the token itself.
// The value never leaves this process in an argument, a variable or a message.
func plaintext(ctx context.Context, s *dagger.Secret) (string, error) {
	if s == nil {
		return "", nil
	}
	v, err := s.Plaintext(ctx)
	if err != nil {
		return "", fmt.Errorf("reading secret: %w", err)
	}
	return v, nil
}

func toSDKFile(ctx context.Context, c *sdk.Client, f *dagger.File) (*sdk.File, error) {
	id, err := f.ID(ctx)
	if err != nil {
		return nil, fmt.Errorf("file id: %w", err)
	}
	return c.LoadFileFromID(sdk.FileID(id)), nil
}

// toJSON renders a function's result for the next job or a machine reader.
func toJSON(v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", fmt.Errorf("rendering the result: %w", err)
	}
	return string(b) + "\n", nil
}
