package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/githubsim"
	"dagger/shipyard/internal/wire"
)

// runCommand runs the command with args and nothing on stdin, and returns its exit code,
// stdout and stderr.
func runCommand(args ...string) (int, string, string) {
	return runWithInput("", args...)
}

// runWithInput is runCommand with stdin.
func runWithInput(stdin string, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, stdio{stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr})
	return code, stdout.String(), stderr.String()
}

func TestDevHistory(t *testing.T) {
	t.Parallel()
	const token = "ghp_devhistorytesttoken0000000000000"
	sim := githubsim.New(t)
	sim.AddToken(token, githubsim.Token{})
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	older := repo.CommitOnBranch("dev", "fix: retry uploads", map[string]string{"README.md": "1\n"})
	newer := repo.CommitOnBranch("dev", "feat: stream logs", map[string]string{"README.md": "2\n"})
	feature := repo.CommitOnBranch("feature", "wip", map[string]string{"README.md": "3\n"})
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	api := []string{"--api", sim.URL + "/", "--token-file", tokenFile, "--repo", "elixir-cloud-aai/tesk-core", "--branch", "dev"}

	for _, tt := range []struct {
		name   string
		commit string
		want   wire.DevHistory
	}{
		{name: "an older commit of dev", commit: older, want: wire.DevHistory{Commit: older, OnDev: true, Newer: []string{newer}, Complete: true}},
		{name: "dev's head", commit: newer, want: wire.DevHistory{Commit: newer, OnDev: true, Complete: true}},
		{name: "a commit off dev", commit: feature, want: wire.DevHistory{Commit: feature, Complete: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCommand(append([]string{"dev-history", "--commit", tt.commit}, api...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var got wire.DevHistory
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("%v: %s", err, stdout)
			}
			if got.Commit != tt.want.Commit || got.OnDev != tt.want.OnDev || got.Complete != tt.want.Complete || !slices.Equal(got.Newer, tt.want.Newer) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Every failure exits non-zero with the command named and nothing on stdout; a usage error
// (a bug of the module's) with 2; none shows the token.
func TestDevHistoryFailures(t *testing.T) {
	t.Parallel()
	const token = "ghp_devhistoryfailuretoken00000000000"
	sim := githubsim.New(t)
	sim.AddToken(token, githubsim.Token{})
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	commit := repo.CommitOnBranch("dev", "fix: retry uploads", map[string]string{"README.md": "1\n"})
	sim.InjectFault(http.MethodGet, "/repos/elixir-cloud-aai/tesk-core/compare/*", githubsim.Fault{Kind: githubsim.FaultStatus, Status: http.StatusGone, Times: 100})
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{name: "no command", args: nil, code: wire.ExitUsage, inStderr: "usage: github"},
		{name: "an unknown command", args: []string{"releases"}, code: wire.ExitUsage, inStderr: `unknown command "releases"`},
		{name: "an unknown flag", args: []string{"dev-history", "--owner", "x"}, code: wire.ExitUsage, inStderr: "flag provided but not defined"},
		{name: "no commit", args: []string{"dev-history", "--api", sim.URL + "/", "--repo", "o/r", "--branch", "dev"}, code: wire.ExitUsage, inStderr: "--commit and --branch are required"},
		{name: "a bad repository", args: []string{"dev-history", "--api", sim.URL + "/", "--repo", "tesk-core", "--commit", commit, "--branch", "dev"}, code: wire.ExitUsage, inStderr: "--repo"},
		{name: "no API", args: []string{"dev-history", "--repo", "o/r", "--commit", commit, "--branch", "dev"}, code: wire.ExitUsage, inStderr: "--api is required"},
		{name: "a missing token file", args: []string{"dev-history", "--api", sim.URL + "/", "--token-file", filepath.Join(dir, "none"), "--repo", "elixir-cloud-aai/tesk-core", "--commit", commit, "--branch", "dev"},
			code: wire.ExitFailure, inStderr: "reading the token file"},
		{name: "GitHub fails", args: []string{"dev-history", "--api", sim.URL + "/", "--token-file", tokenFile, "--repo", "elixir-cloud-aai/tesk-core", "--commit", commit, "--branch", "dev"},
			code: wire.ExitFailure, inStderr: "github dev-history: github: compare"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCommand(tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.inStderr) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, stdout, stderr, tt.code, tt.inStderr)
			}
			if strings.Contains(stderr, token) {
				t.Errorf("the token is in the error: %s", stderr)
			}
		})
	}
}
