package main

import (
	"context"
	"maps"
	"strings"
	"testing"

	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/trust"
)

// sessionSource hands the caller's tree (--source) to the session's client: the same
// files, read through the SDK; without a source it names what is missing.
func TestSessionSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, _ := newModule(t, map[string]string{"pyproject.toml": "[project]\nname = \"tesk-core\"\n"})
	c, src, err := m.sessionSource(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c != m.clients.sdk {
		t.Error("sessionSource made a second client instead of the session's")
	}
	got, err := src.File("pyproject.toml").Contents(ctx)
	if err != nil || !strings.Contains(got, `name = "tesk-core"`) {
		t.Errorf("pyproject.toml through the session = %q, %v", got, err)
	}

	m.Source = nil
	if _, _, err := m.sessionSource(ctx); err == nil || err.Error() != "source: no directory given" {
		t.Errorf("without a source: %v", err)
	}
}

// The model flows are set up like the release: at the call's trust level, logging each
// step on the call's stderr.
func TestModelEnvLogsLikeTheRelease(t *testing.T) {
	t.Parallel()
	m, _ := newModule(t, nil)
	m.GithubToken = m.engine().SetSecret("github-token", "ghp_x")
	env, src, err := m.modelEnv(context.Background(), "update-repos")
	if err != nil {
		t.Fatal(err)
	}
	d, err := functions.Of("update-repos")
	if err != nil {
		t.Fatal(err)
	}
	level, err := trust.Of("update-repos", d.Trust, m.caller())
	if err != nil {
		t.Fatal(err)
	}
	if env.Log == nil || env.Trust != level || !level.Publishes() || src == nil {
		t.Errorf("modelEnv = log set %v, trust %v (want %v), source %v", env.Log != nil, env.Trust, level, src)
	}
}

// What a call holds, as the trust rule reads it: each credential with where it acts, and a
// dry run or --demo as a rehearsal.
func TestCaller(t *testing.T) {
	t.Parallel()
	m, _ := newModule(t, nil)
	dag := m.engine()
	if c := m.caller(); len(c.Holds) != 0 || c.Rehearsal {
		t.Errorf("no credentials: %+v", c)
	}
	m.GithubToken, m.RegistryPassword = dag.SetSecret("t", "x"), dag.SetSecret("p", "y")
	m.Registry, m.Org = "registry.example", "org"
	signing := m.WithSigstore(dag.SetSecret("o", "z"), nil, nil, "https://fulcio.example", "", nil, nil, "", "", "")
	want := map[trust.Credential]string{
		trust.GitHubToken:      "https://api.github.com/ elixir-cloud-aai/tesk-core",
		trust.RegistryPassword: "registry.example/org",
		trust.IdentityToken:    "https://fulcio.example",
	}
	if c := signing.caller(); !maps.Equal(c.Holds, want) || c.Rehearsal {
		t.Errorf("every credential: %+v, want %v", c, want)
	}
	if !signing.rehearsing(true).caller().Rehearsal || signing.rehearsing(false).caller().Rehearsal {
		t.Error("a dry run is not a rehearsal, or every call is")
	}
	m.Demo = true
	if !m.caller().Rehearsal {
		t.Error("--demo is not a rehearsal")
	}
}
