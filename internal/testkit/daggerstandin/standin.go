// Package dagger is a stand-in for the package the Dagger engine generates at
// internal/dagger when it loads the module. It aliases the published SDK's types, which
// carry the same names, so main.go compiles and runs in tests without an engine. The
// build reaches it only through the overlay in this folder (see overlay.json); the real
// internal/dagger path is the engine's and stays out of git.
package dagger

import (
	sdk "dagger.io/dagger"
)

// The core types main.go receives and returns. The generated package defines its own
// types with these names; the SDK's have the same methods, so aliases keep main.go honest.
type (
	Client      = sdk.Client
	Container   = sdk.Container
	Directory   = sdk.Directory
	File        = sdk.File
	Secret      = sdk.Secret
	CacheVolume = sdk.CacheVolume
	Service     = sdk.Service
	Changeset   = sdk.Changeset
	Platform    = sdk.Platform

	// ID is the one ID scalar that node(id:) loads; the per-type …ID scalars are a legacy
	// surface the engine's lib version of the SDK no longer has.
	ID = sdk.ID

	ExecError = sdk.ExecError

	ContainerOpts                 = sdk.ContainerOpts
	ContainerWithExecOpts         = sdk.ContainerWithExecOpts
	ContainerWithMountedCacheOpts = sdk.ContainerWithMountedCacheOpts
	DirectoryFilterOpts           = sdk.DirectoryFilterOpts
)

// Ref mirrors the generated Ref: a lazy reference to an object through node(id:).
func Ref[T sdk.Loadable[T]](c *Client, id ID) T { return sdk.Ref[T](c, id) }

// Connect mirrors the generated Connect, which joins the session named by
// DAGGER_SESSION_PORT and DAGGER_SESSION_TOKEN. The stand-in never runs a module: tests
// assign the package-level dag client of main.go to one connected to the engine double.
func Connect() *Client { return nil }
