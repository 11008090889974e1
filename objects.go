package main

import (
	"context"
	"fmt"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/dagger"
)

// The module receives the engine-generated types (internal/dagger); pipelines/ and models/
// build graphs with the published SDK. Both speak to the same session, so objects cross by
// ID, loaded through node(id:) with Ref: the engine's codegen moves the module onto its own
// lib version of the SDK, which has Ref and WithGraphQLQuery but neither LoadXFromID nor the
// …ID types that v0.21.8 has, and code written on what both share compiles under either.

// This file holds that crossing, and the trees a call starts from.

// sessionSource is the session's client and the module's source (--source) handed to it,
// what every function that reads the caller's tree starts from.
func (m *Shipyard) sessionSource(ctx context.Context) (*sdk.Client, *sdk.Directory, error) {
	c, err := m.session(ctx)
	if err != nil {
		return nil, nil, err
	}
	src, err := toSDKDirectory(ctx, c, m.Source)
	if err != nil {
		return nil, nil, fmt.Errorf("source: %w", err)
	}
	return c, src, nil
}

func toSDKDirectory(ctx context.Context, c *sdk.Client, d *dagger.Directory) (*sdk.Directory, error) {
	if d == nil {
		return nil, fmt.Errorf("no directory given")
	}
	id, err := d.ID(ctx)
	if err != nil {
		return nil, fmt.Errorf("directory id: %w", err)
	}
	return sdk.Ref[*sdk.Directory](c, sdk.ID(id)), nil
}

func toSDKSecret(ctx context.Context, c *sdk.Client, s *dagger.Secret) (*sdk.Secret, error) {
	if s == nil {
		return nil, nil
	}
	id, err := s.ID(ctx)
	if err != nil {
		return nil, fmt.Errorf("secret id: %w", err)
	}
	return sdk.Ref[*sdk.Secret](c, sdk.ID(id)), nil
}

// fromSDKDirectory hands a directory of the session's SDK client back to the module's.
func (m *Shipyard) fromSDKDirectory(ctx context.Context, d *sdk.Directory) (*dagger.Directory, error) {
	id, err := d.ID(ctx)
	if err != nil {
		return nil, err
	}
	return dagger.Ref[*dagger.Directory](m.engine(), dagger.ID(id)), nil
}

// reports hands back the reports a function returns whatever their verdict, which is in
// their verdict.json: only a run that made none fails, with its error.
func (m *Shipyard) reports(ctx context.Context, dir *sdk.Directory, err error) (*dagger.Directory, error) {
	if dir == nil {
		return nil, err
	}
	return m.fromSDKDirectory(ctx, dir)
}

func (m *Shipyard) fromSDKContainer(ctx context.Context, c *sdk.Container) (*dagger.Container, error) {
	id, err := c.ID(ctx)
	if err != nil {
		return nil, err
	}
	return dagger.Ref[*dagger.Container](m.engine(), dagger.ID(id)), nil
}

func toSDKFile(ctx context.Context, c *sdk.Client, f *dagger.File) (*sdk.File, error) {
	id, err := f.ID(ctx)
	if err != nil {
		return nil, fmt.Errorf("file id: %w", err)
	}
	return sdk.Ref[*sdk.File](c, sdk.ID(id)), nil
}

// supplychainSource is the supplychain command's source: this module's own folder, so the
// signing tool is always the one this version of Shipyard was tested with.
func (m *Shipyard) supplychainSource(ctx context.Context, c *sdk.Client) (*sdk.Directory, error) {
	if m.clients.supplychain != nil {
		return m.clients.supplychain, nil
	}
	id, err := m.engine().CurrentModule().Source().Directory("supplychain").ID(ctx)
	if err != nil {
		return nil, fmt.Errorf("the module's supplychain folder: %w", err)
	}
	return sdk.Ref[*sdk.Directory](c, sdk.ID(id)), nil
}

// moduleSource is the module's own source: the GitHub command and the demo server are
// built from it, so each is always the one this version of Shipyard was tested with.
func (m *Shipyard) moduleSource(ctx context.Context, c *sdk.Client) (*sdk.Directory, error) {
	id, err := m.engine().CurrentModule().Source().ID(ctx)
	if err != nil {
		return nil, fmt.Errorf("the module's source: %w", err)
	}
	return sdk.Ref[*sdk.Directory](c, sdk.ID(id)), nil
}
