package versions

import (
	"dagger/shipyard/internal/githubclient"

	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"

	"dagger/shipyard/internal/flow"
)

// CacheStore keeps the GitHub ETag cache between runs. Load returns nil and no error when
// nothing was stored yet.
type CacheStore interface {
	Load(ctx context.Context) ([]byte, error)
	Save(ctx context.Context, data []byte) error
}

// FileStore keeps the cache in a file, for a laptop or a runner with a persistent disk.
type FileStore string

// Load reads the file; a missing file is an empty cache.
func (f FileStore) Load(context.Context) ([]byte, error) {
	b, err := os.ReadFile(string(f))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ETag cache file: %w", err)
	}
	return b, nil
}

// Save replaces the file atomically (write a sibling, then rename), so a concurrent Load
// never reads half a cache; the file is readable by its owner only, as it holds responses
// the token could read.
func (f FileStore) Save(_ context.Context, data []byte) error {
	dir := filepath.Dir(string(f))
	tmp, err := os.CreateTemp(dir, ".etags-*")
	if err != nil {
		return fmt.Errorf("ETag cache file: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("ETag cache file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("ETag cache file: %w", err)
	}
	if err := os.Rename(tmp.Name(), string(f)); err != nil {
		return fmt.Errorf("ETag cache file: %w", err)
	}
	return nil
}

// Token is a GitHub token held in memory. It formats as "[redacted]" with every verb that
// would print a string, so a Config logged by mistake does not show it.
type Token string

func (Token) String() string   { return "[redacted]" }
func (Token) GoString() string { return "[redacted]" }

// RequireToken is the rule on a run's token: a run that writes (not --check) needs one,
// and the error says which, since the workflow's default GITHUB_TOKEN would push a branch
// on which no CI runs. --check may run without one, within GitHub's anonymous limits.
func RequireToken(token Token, check bool) error {
	if token != "" || check {
		return nil
	}
	return errors.New("--github-token is required to push " + Branch + " and open its pull request: " +
		"pass the CI_GITHUB_TOKEN secret (e.g. --github-token env://CI_GITHUB_TOKEN), a token whose pushes trigger workflows, " +
		"not the default GITHUB_TOKEN")
}

// Config is what RunWithCache builds a run's clients from.
type Config struct {
	// APIURL is the GitHub REST API base URL (github.DefaultBaseURL when empty).
	APIURL string
	// Token authenticates to GitHub. Pushes made with it must trigger workflows, so the
	// pull request runs CI: a personal or app token such as CI_GITHUB_TOKEN, never the
	// workflow's own GITHUB_TOKEN, whose pushes GitHub does not turn into new runs.
	Token Token
	// Cache keeps the ETag cache between runs; nil keeps it for this run only.
	Cache CacheStore
	// PyPI fetches Cloudcoil's versions (nil: http.DefaultClient).
	PyPI *http.Client
	// ClientOptions are passed on to githubclient.NewClient (tests set a clock and a sleeper).
	ClientOptions []githubclient.Option
	// Log receives one line per step (nil: none).
	Log func(format string, args ...any)
}

// setupSteps run before the clients are built from setup: a run that writes (not check)
// needs a token, refused before anything is loaded or sent.
func setupSteps(check bool) []flow.Step[Config] {
	return []flow.Step[Config]{{Name: "check token", Run: func(_ context.Context, s *Config) error {
		return RequireToken(s.Token, check)
	}}}
}

// RunWithCache is Run with a GitHub client built for this run around the ETag cache that
// setup.Cache kept from the previous run, and saved back afterwards (also after a failed
// run: what it read is still valid). A cache that cannot be loaded or saved is a note in
// the report, not a failure: without it the run costs full requests but is just as correct,
// since GitHub revalidates every cached answer before it is used. Each stored answer is
// sealed with a key derived from the token (githubclient.CacheSeal): one that fails its check is
// dropped and fetched again, and a run without a token neither reads nor writes the store.
// A run that writes
// without a token is refused (RequireToken) before anything is loaded or sent.
func RunWithCache(ctx context.Context, setup Config, opts Options) (Report, error) {
	if _, err := flow.Run(ctx, flow.Runner{Flow: flowName, Log: setup.Log}, setupSteps(opts.Check), &setup); err != nil {
		return Report{}, err
	}
	cache := githubclient.NewCache(0)
	var notes []string
	store := setup.Cache
	var seal githubclient.CacheSeal
	if store != nil {
		var err error
		if seal, err = githubclient.NewCacheSeal(string(setup.Token)); err != nil {
			// Without a token nothing can tell a stored answer from a planted one.
			notes = append(notes, "ETag cache not used without a token: its entries are sealed with one")
			store = nil
		}
	}
	if store != nil {
		data, err := store.Load(ctx)
		switch {
		case err != nil:
			notes = append(notes, fmt.Sprintf("ETag cache not loaded, starting cold: %v", err))
		case data != nil:
			dropped, err := cache.Import(data, seal)
			if err != nil {
				notes = append(notes, fmt.Sprintf("ETag cache not used, starting cold: %v", err))
			}
			if dropped > 0 {
				notes = append(notes, fmt.Sprintf("ETag cache: dropped %d stored answer(s) that fail their integrity check (changed, or stored with another token); fetched again", dropped))
			}
		}
	}
	client, err := githubclient.NewClient(setup.APIURL, string(setup.Token), append([]githubclient.Option{githubclient.WithCache(cache)}, setup.ClientOptions...)...)
	if err != nil {
		return Report{}, err
	}
	report, runErr := run(ctx, setup, client, opts)
	report.Notes = append(notes, report.Notes...)
	if store != nil {
		data, err := cache.Export(seal)
		if err == nil {
			err = store.Save(ctx, data)
		}
		if err != nil {
			report.Notes = append(report.Notes, fmt.Sprintf("ETag cache not saved, the next run starts cold: %v", err))
		}
	}
	return report, runErr
}
