package main

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/dagger"
	"dagger/shipyard/internal/demo"
	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/output"
	"dagger/shipyard/internal/plainhttp"
	"dagger/shipyard/pipelines/ci"
)

// The module receives the engine-generated types (internal/dagger); pipelines/ and models/
// build graphs with the published SDK. Both speak to the same session, so objects cross by
// ID, loaded through node(id:) with Ref: the engine's codegen moves the module onto its own
// lib version of the SDK, which has Ref and WithGraphQLQuery but neither LoadXFromID nor the
// …ID types that v0.21.8 has, and code written on what both share compiles under either.

// clients are how the module's functions reach the engine. The fields are unexported, so
// Dagger neither serializes nor exposes them: a real call leaves them nil and uses the
// module's own session; tests set them, and so need no package state.
type clients struct {
	// sdk is the published SDK's client, for pipelines/ and models/.
	sdk *sdk.Client
	// dag is the module's generated client, for the objects a function returns.
	dag *dagger.Client
	// supplychain is the supplychain command's source; nil is the module's own folder.
	supplychain *sdk.Directory
	// demoBuilder and demoSource build the demo server; nil are the module's own runtime
	// container and source.
	demoBuilder *sdk.Container
	demoSource  *sdk.Directory
	// demo, when set, is where a demo server already answers: tests serve the demo's
	// handlers themselves, and the --demo code paths run unchanged after the start.
	demo *demo.Endpoints
	// demoPyPI is this call's forwarder to the demo's PyPI, once opened.
	demoPyPI string
}

// calling is the module for one call of the function whose method calls it, what a
// function starts with when the helpers it reaches read its name (for its trust level,
// platforms, tools and registry target): they read fn from it instead of each being told,
// and open the session when they need it. The function is found from the caller's method,
// so no function writes its own name: its declaration (internal/functions, generated from
// its doc pragmas) gives it.
func (m *Shipyard) calling() (*Shipyard, error) {
	d, err := functions.OfMethod(callerMethod())
	if err != nil {
		return nil, err
	}
	return m.opening(d)
}

// callerMethod is the Go name of the method that called calling: runtime.CallersFrames
// counts inlined calls as frames of their own, so neither inlining calling nor its
// caller changes the answer.
func callerMethod() string {
	pcs := make([]uintptr, 1)
	if runtime.Callers(3, pcs) == 0 { // runtime.Callers, callerMethod, calling
		return ""
	}
	frame, _ := runtime.CallersFrames(pcs).Next()
	return frame.Function[strings.LastIndex(frame.Function, ".")+1:]
}

// opening is the module for one call of the function d declares. A copy, as rehearsing
// is, so the module a caller holds (a test calls several functions on one) keeps its own.
//
// It refuses, before anything runs, what d does not allow: --demo for a function that
// writes outside the engine, unless this call is its dry run (demo.Writes). This is the
// one place it is decided, for every function.
func (m *Shipyard) opening(d functions.Declaration) (*Shipyard, error) {
	if m.Demo {
		if err := demo.Writes(d.Name, d.Trust, m.rehearsal); err != nil {
			return nil, err
		}
	}
	c := *m
	c.fn = d.Name
	return &c, nil
}

// session is the SDK client of this call's session. A real call joins the module's
// session with the published SDK on first use (inside a module, Connect reads
// DAGGER_SESSION_PORT and DAGGER_SESSION_TOKEN) and keeps the client in m.clients, which
// lives as long as the call; tests set m.clients.sdk to an engine double's client.
func (m *Shipyard) session(ctx context.Context) (*sdk.Client, error) {
	if m.clients.sdk != nil {
		return m.clients.sdk, nil
	}
	c, err := sdk.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("joining the Dagger session: %w", err)
	}
	m.clients.sdk = c
	return c, nil
}

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

// engine is the module's generated client of this call's session.
func (m *Shipyard) engine() *dagger.Client {
	if m.clients.dag != nil {
		return m.clients.dag
	}
	return dag
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

// demoEndpoints starts the demo server (--demo), built from the module's own source in the
// module's own runtime container (the one image every engine that runs this module has),
// and returns the service and its own URLs.
func (m *Shipyard) demoEndpoints(ctx context.Context) (demo.Endpoints, error) {
	if m.clients.demo != nil {
		return *m.clients.demo, nil
	}
	c, err := m.session(ctx)
	if err != nil {
		return demo.Endpoints{}, err
	}
	builder, src := m.clients.demoBuilder, m.clients.demoSource
	if builder == nil || src == nil {
		if src, err = m.moduleSource(ctx, c); err != nil {
			return demo.Endpoints{}, err
		}
		builder = src.AsModule().Runtime()
	}
	e, err := demo.Start(ctx, demo.Service(c, builder, src))
	if err != nil {
		return demo.Endpoints{}, err
	}
	m.clients.demo = &e // one start per call
	return e, nil
}

// demoPyPI is the demo server's PyPI, for --demo, through a loopback forwarder of this
// process (one per call): the engine fetches from the git host itself, and the GitHub
// command reaches the GitHub API bound to its container, so only this process's PyPI client
// needs one.
func (m *Shipyard) demoPyPI(ctx context.Context) (string, error) {
	if m.clients.demoPyPI != "" {
		return m.clients.demoPyPI, nil
	}
	e, err := m.demoEndpoints(ctx)
	if err != nil {
		return "", err
	}
	if m.clients.demoPyPI, err = plainhttp.Loopback(ctx, e.PyPI); err != nil {
		return "", err
	}
	return m.clients.demoPyPI, nil
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

// toJSON renders a function's result for the next job or a machine reader.
func toJSON(v any) (string, error) {
	return output.Render(output.JSON, v, nil)
}

// printed is what a function prints of its last step: the step's result as JSON, or the
// step's error.
func printed(v any, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return toJSON(v)
}

// platformsOf are the platforms this call's function builds images for: every default
// platform when its images are published (AllPlatforms in internal/functions) and
// with-platforms chose none.
func (m *Shipyard) platformsOf() ([]sdk.Platform, error) {
	d, err := functions.Of(m.fn)
	if err != nil {
		return nil, err
	}
	return ci.PlatformsOf(d.AllPlatforms, m.Platforms)
}
