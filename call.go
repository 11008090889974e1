package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/dagger"
	"dagger/shipyard/internal/demo"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/functions"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/publish"
)

// Opening a call: the function a call is of (its declaration in internal/functions), the
// naming of its errors, the session, and the platforms the function builds for.

// call runs body as one call of the function whose method calls it: what a function
// does when the helpers it reaches read its name (for its trust level, platforms, tools
// and registry target). body gets the call's module, whose fn the helpers read instead of
// each being told, and which opens the session when they need it. The function is found
// from the caller's method, so no function writes its own name: its declaration
// (internal/functions, generated from its doc pragmas) gives it. The call's refusal (an
// undeclared method, --demo for a function that writes) returns before body runs, and
// body's error is named as the function's (naming). One opening for every function, so
// none repeats it.
func call[T any](m *Shipyard, body func(*Shipyard) (T, error)) (_ T, err error) {
	var zero T
	d, err := functions.OfMethod(callerMethod())
	if err != nil {
		return zero, err
	}
	c, err := m.opening(d)
	if err != nil {
		return zero, err
	}
	defer c.naming(&err)
	return body(c)
}

// callerMethod is the Go name of the method that called call: runtime.CallersFrames
// counts inlined calls as frames of their own, so neither inlining call nor its caller
// changes the answer.
func callerMethod() string {
	pcs := make([]uintptr, 1)
	if runtime.Callers(3, pcs) == 0 { // runtime.Callers, callerMethod, call
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

// engine is the module's generated client of this call's session.
func (m *Shipyard) engine() *dagger.Client {
	if m.clients.dag != nil {
		return m.clients.dag
	}
	return dag
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

// spelled is err with publishing's inputs named as Shipyard's users give them: the
// constructor's flags, with-sigstore's and with-platforms, and each function's own.
// Publishing names no flag of Shipyard's; this is the one place they meet.
func spelled(err error) error {
	return publish.Spell(err, map[publish.Input]string{
		publish.InputRegistry:         "--registry",
		publish.InputOrg:              "--org",
		publish.InputRegistryUsername: "--registry-username",
		publish.InputImageRefs:        "--ref",
		publish.InputPlatform:         "--platform",
		publish.InputPlatforms:        functions.WithPlatforms,
		publish.InputCommit:           "--sha",
		publish.InputRepository:       "--repo",
		publish.InputGitHubEnv:        functions.WithSigstore + " --github-env",
		publish.InputBuilderID:        functions.WithSigstore + " --builder-id",
		publish.InputBuildType:        functions.WithSigstore + " --build-type",
		publish.InputIdentityToken:    functions.WithSigstore + " --oidc-token",
		publish.InputTokenRequestURL:  functions.WithSigstore + " --actions-id-token-request-url",
		publish.InputTokenRequest:     functions.WithSigstore + " --actions-id-token-request-token",
		publish.InputTrustedRoot:      functions.WithSigstore + " --trusted-root",
		publish.InputFulcioURL:        functions.WithSigstore + " --fulcio-url",
		publish.InputRekorURL:         functions.WithSigstore + " --rekor-url",
		publish.InputIdentity:         "--identity",
		publish.InputIssuer:           "--issuer",
		publish.InputMinSCTs:          "--min-scts",
	})
}

// naming names the function in the error its call returns, so that no package writes a
// function's name into its errors: deferred by every function that opens a call. It also
// names publishing's inputs as Shipyard's flags (spelled). Two kinds are left as they are: a
// flow's failure whose flow is this function (flow.Error names its flow and step), and a
// report returned as the error (reportError: doctor's, release-plan's JSON).
func (m *Shipyard) naming(err *error) {
	if *err == nil {
		return
	}
	*err = spelled(*err)
	var report reportError
	if errors.As(*err, &report) {
		return
	}
	if fe, ok := (*err).(*flow.Error); ok && (fe.Flow == m.fn || strings.HasPrefix(fe.Flow, m.fn+" ")) {
		return
	}
	*err = fmt.Errorf("%s: %w", m.fn, *err)
}
