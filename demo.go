package main

import (
	"context"

	"dagger/shipyard/internal/demo"
	"dagger/shipyard/internal/plainhttp"
)

// The demo servers a --demo call reads from in place of GitHub and PyPI.

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
