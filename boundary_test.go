package main

import (
	"context"
	"strings"
	"testing"

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

// The model flows are set up like the release: at the calling function's trust level,
// logging each step on the call's stderr.
func TestModelEnvLogsLikeTheRelease(t *testing.T) {
	t.Parallel()
	m, _ := newModule(t, nil)
	env, src, err := m.modelEnv(context.Background(), "update-repos")
	if err != nil {
		t.Fatal(err)
	}
	level, err := trust.Of("update-repos")
	if err != nil {
		t.Fatal(err)
	}
	if env.Log == nil || env.Trust != level || src == nil {
		t.Errorf("modelEnv = log set %v, trust %v (want %v), source %v", env.Log != nil, env.Trust, level, src)
	}
}
