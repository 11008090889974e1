package versions

import (
	"context"
	"errors"
	"net/http"

	"dagger/shipyard/internal/flow"
)

// RequireToken is the rule on a run's token: a run that writes (not --check) needs one,
// and the error says which, since the workflow's default GITHUB_TOKEN would push a branch
// on which no CI runs. --check may run without one, within GitHub's anonymous limits.
func RequireToken(hasToken, check bool) error {
	if hasToken || check {
		return nil
	}
	return errors.New("--github-token is required to push " + Branch + " and open its pull request: " +
		"pass the CI_GITHUB_TOKEN secret (e.g. --github-token env://CI_GITHUB_TOKEN), a token whose pushes trigger workflows, " +
		"not the default GITHUB_TOKEN")
}

// Config is what a run needs besides its GitHub client and its options.
type Config struct {
	// Flow is the function the run is a call of (model-versions), which names the flow in
	// logs and errors.
	Flow string
	// HasToken says whether the GitHub client authenticates with a token. Pushes made with
	// it must trigger workflows, so the pull request runs CI: a personal or app token such
	// as CI_GITHUB_TOKEN, never the workflow's own GITHUB_TOKEN, whose pushes GitHub does
	// not turn into new runs.
	HasToken bool
	// PyPI fetches Cloudcoil's versions (nil: http.DefaultClient).
	PyPI *http.Client
	// Log receives one line per step (nil: none).
	Log func(format string, args ...any)
	// ClientNotes are what the GitHub client has to say of how it made its calls, such as
	// an ETag cache it could not use (githubcmd.Client.Notes); they open the report's
	// notes (nil: none).
	ClientNotes func() []string
}

// setupSteps run before the flow's own: a run that writes (not check) needs a token,
// refused before anything is sent.
func setupSteps(check bool) []flow.Step[Config] {
	return []flow.Step[Config]{{Name: "check token", Run: func(_ context.Context, s *Config) error {
		return RequireToken(s.HasToken, check)
	}}}
}
