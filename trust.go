package main

import (
	"context"
	"fmt"

	"dagger/shipyard/internal/dagger"
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
			return trust.Untrusted(), fmt.Errorf("the digest of the source: %w", err)
		}
	}
	if c.Values, err = m.credentialValues(ctx, trust.Sealing(d.Trust, c)); err != nil {
		return trust.Untrusted(), err
	}
	return trust.Of(m.fn, d.Trust, c)
}

// credentialValues reads the values of the credentials creds (those trust.Sealing names:
// the call runs at the release level) into this process's memory, where trust.Of makes the
// MAC that seals the level's cache volume names of them, so only a holder of the
// credentials can name those volumes. Nothing else is made of them here: no volume name,
// argument, environment, log or error holds a value; containers still get each credential
// as a secret.
func (m *Shipyard) credentialValues(ctx context.Context, creds []trust.Credential) (map[trust.Credential]trust.Secret, error) {
	values := map[trust.Credential]trust.Secret{}
	for _, c := range creds {
		var secret *dagger.Secret
		var flag string
		switch c {
		case trust.GitHubToken:
			secret, flag = m.GithubToken, "--github-token"
		case trust.RegistryPassword:
			secret, flag = m.RegistryPassword, "--registry-password"
		}
		if secret == nil {
			return nil, fmt.Errorf("its release level is sealed with the %s, which the module does not take or the call did not give (internal/trust.Sealing)", c)
		}
		v, err := secret.Plaintext(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading %s, whose MAC names the release level's cache volumes: %w", flag, err)
		}
		values[c] = trust.SecretOf(v)
	}
	return values, nil
}

// rehearsing is the module for a call that writes nothing when dry (--dry-run, --check):
// it runs at the pull-request level whatever it holds, so a rehearsal never shares a
// cache volume with a credentialed run.
func (m *Shipyard) rehearsing(dry bool) *Shipyard {
	c := *m
	c.rehearsal = c.rehearsal || dry
	return &c
}

// hasIdentityToken is whether with-sigstore gave a way to get an identity token.
func (m *Shipyard) hasIdentityToken() bool {
	return m.OidcToken != nil || m.ActionsIDTokenRequestURL != nil || m.ActionsIDTokenRequestToken != nil
}
