package main

import (
	"context"
	"fmt"

	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/trust"
)

// The trust level of a call is decided here, at the boundary, by the function's trust rule
// (internal/functions) from what the call holds: the credentials the constructor and with-sigstore were
// given, where each acts, and whether the call writes anything. A function's name alone
// raises nothing.

// caller is what this call holds and asks, from the constructor's, with-sigstore's and the
// function's arguments (trust.CallerOf decides what they amount to).
func (m *Shipyard) caller() trust.Caller {
	return trust.CallerOf(trust.Args{
		GitHubToken: m.GithubToken != nil, GitHubAPI: m.GithubAPI, Repo: m.Repo,
		RegistryPassword: m.RegistryPassword != nil, Registry: m.Registry, Org: m.Org,
		IdentityToken: m.hasIdentityToken(), FulcioURL: m.FulcioURL,
		DryRun: m.rehearsal, Demo: m.Demo,
	})
}

// level is the trust level of this call, which names the cache volumes its graphs mount.
// A function whose caches belong to its source tree (publish-check) gets the digest of
// --source.
func (m *Shipyard) level(ctx context.Context) (trust.Level, error) {
	d, err := functions.Of(m.fn)
	if err != nil {
		return trust.Untrusted(), err
	}
	c := m.caller()
	if d.Trust.Tree {
		_, src, err := m.sessionSource(ctx)
		if err != nil {
			return trust.Untrusted(), err
		}
		if c.Tree, err = src.Digest(ctx); err != nil {
			return trust.Untrusted(), fmt.Errorf("%s: the digest of the source: %w", m.fn, err)
		}
	}
	return trust.Of(m.fn, d.Trust, c)
}

// rehearsing is the module for a call that writes nothing when dry (--dry-run, --check):
// it runs at the pull-request level whatever it holds, so a rehearsal never shares a
// cache volume with a credentialed run.
func (m *Shipyard) rehearsing(dry bool) *Shipyard {
	c := *m
	c.rehearsal = c.rehearsal || dry
	return &c
}
