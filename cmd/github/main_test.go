package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
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

// Every failure of the command line exits non-zero with the command named and nothing on
// stdout; a usage error (a bug of the module's) with 2; none shows the token.
func TestCommandLineFailures(t *testing.T) {
	t.Parallel()
	const token = "ghp_commandlinefailuretoken000000000"
	sim := githubsim.New(t)
	sim.AddToken(token, githubsim.Token{})
	dir := t.TempDir()
	args := `["elixir-cloud-aai", "tesk-core", "0123456789abcdef0123456789abcdef01234567", "dev"]`
	for _, tt := range []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{name: "no command", args: nil, code: wire.ExitUsage, inStderr: "usage: github"},
		{name: "an unknown command", args: []string{"releases"}, code: wire.ExitUsage, inStderr: `unknown command "releases"`},
		// dev-history was a second way to read dev's order; call CommitsAfter is the one.
		{name: "dev-history is gone", args: []string{"dev-history", "--api", sim.URL + "/"}, code: wire.ExitUsage, inStderr: `unknown command "dev-history"`},
		{name: "an unknown flag", args: []string{"call", "--owner", "x", "CommitsAfter"}, code: wire.ExitUsage, inStderr: "flag provided but not defined"},
		{name: "no API", args: []string{"call", "CommitsAfter"}, code: wire.ExitUsage, inStderr: "--api is required"},
		{name: "a missing token file", args: []string{"call", "--api", sim.URL + "/", "--token-file", filepath.Join(dir, "none"), "CommitsAfter"},
			code: wire.ExitFailure, inStderr: "reading the token file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runWithInput(args, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.inStderr) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, stdout, stderr, tt.code, tt.inStderr)
			}
			if strings.Contains(stderr, token) {
				t.Errorf("the token is in the error: %s", stderr)
			}
		})
	}
	t.Cleanup(func() { // after the parallel subtests
		if n := len(sim.Requests()); n != 0 {
			t.Errorf("failed command lines sent %d requests", n)
		}
	})
}
