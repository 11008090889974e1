package main

import (
	"context"
	"strings"
	"testing"

	"dagger/shipyard/pipelines/publish/publishtest"
)

// forkEnv is a dev run of ci.yml in a fork: GitHub names the fork in GITHUB_REPOSITORY.
var forkEnv = []string{
	"GITHUB_SERVER_URL=https://github.com", "GITHUB_REPOSITORY=a-fork/tesk-core",
	"GITHUB_WORKFLOW_REF=a-fork/tesk-core/.github/workflows/ci.yml@refs/heads/dev", "GITHUB_EVENT_NAME=push",
	"GITHUB_RUN_ID=99", "GITHUB_RUN_ATTEMPT=1", "RUNNER_ENVIRONMENT=github-hosted",
}

// The provenance's source repository is the run's (GITHUB_REPOSITORY); a --repo that names
// another repository is an error, and nothing is attested.
func TestProvenanceNamesTheRunsRepository(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	m, _ := publishModule(t, w, true)

	m.Repo = "a-fork/tesk-core"
	origin, err := m.WithSigstore(nil, nil, nil, "", "", nil, forkEnv, "", "", "").origin()
	if err != nil || origin.SourceRepository != "https://github.com/a-fork/tesk-core" {
		t.Errorf("provenance of the fork's run: %q, %v", origin.SourceRepository, err)
	}

	// The fork's workflow without --repo: the default names upstream, the run the fork.
	m.Repo = "elixir-cloud-aai/tesk-core"
	writes := len(w.Registry.Writes())
	_, err = withSigstoreEnv(m, w, forkEnv).Attest(ctx, `{"filer": "`+repoOf(w, "filer")+`@sha256:`+strings.Repeat("1", 64)+`"}`, devSHA, "refs/heads/dev", "")
	if err == nil || !strings.Contains(err.Error(), "a-fork/tesk-core") || !strings.Contains(err.Error(), "elixir-cloud-aai/tesk-core") ||
		!strings.Contains(err.Error(), `--repo "$GITHUB_REPOSITORY"`) {
		t.Errorf("attest with --repo and the run disagreeing: %v", err)
	}
	if extra := w.Registry.Writes()[writes:]; len(extra) != 0 {
		t.Errorf("the refused attest wrote %v", extra)
	}
}

// withSigstoreEnv chains with-sigstore as the dev workflow does, with the run's variables env.
func withSigstoreEnv(m *Shipyard, w *publishtest.World, env []string) *Shipyard {
	c := m.engine()
	token := c.SetSecret(publishtest.OIDCTokenSecret, w.Token)
	return m.WithSigstore(token, nil, nil, w.Sigstore.URL, w.Sigstore.URL, c.Host().File(w.Sigstore.TrustedRoot), env, "", "", "")
}
