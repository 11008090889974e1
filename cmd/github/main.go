// Command github makes Shipyard's GitHub API calls for the module, in a container of its
// own, so that the module binary, which every job compiles before its first call, links no
// GitHub client. The module builds it from its own source when a function first needs
// GitHub, and the engine caches that build by the command's source alone.
//
//	github call --api URL [--token-file PATH] [--cache-dir DIR] METHOD < arguments.json
//	github batch --api URL [--token-file PATH] [--cache-dir DIR] < requests.json
//
// call makes one of github.Calls and prints a github.Answer; batch makes several
// concurrently, on one client and ETag cache, and prints a github.BatchAnswer.
// The token is read from a file (a mounted
// secret), never from an argument or the environment, and is sent only to the API's own
// host. The exit code is 0 on success, 1 on a failure and 2 on a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"dagger/shipyard/internal/githubclient"
	"dagger/shipyard/internal/plainhttp"
	"dagger/shipyard/internal/wire"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], stdio{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr})
	stop()
	os.Exit(code)
}

const usage = `usage: github <command> [flags]

  call METHOD   one of github.Calls: its arguments on stdin, a JSON array; its answer
                on stdout, a github.Answer
  batch         several of github.Calls at once: a JSON array of github.Request on
                stdin; their answers on stdout, a github.BatchAnswer
`

// usageError is a command line the caller got wrong: a bug of the module that ran it.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// stdio are a command's standard streams, the process's own but in tests.
type stdio struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command parses its flags from fs and returns what it does.
type command func(fs *flag.FlagSet) func(ctx context.Context, api apiFlags, std stdio) error

var commands = map[string]command{
	"call":  call,
	"batch": batch,
}

func run(ctx context.Context, args []string, std stdio) int {
	stderr := std.stderr
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return wire.ExitUsage
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "github: unknown command %q\n%s", args[0], usage)
		return wire.ExitUsage
	}
	fs := flag.NewFlagSet("github "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	var api apiFlags
	fs.StringVar(&api.url, "api", "", "the GitHub REST API's base URL")
	fs.StringVar(&api.tokenFile, "token-file", "", "a file holding the token (anonymous without it)")
	fs.BoolVar(&api.viaLoopback, "via-loopback", false, "reach --api, a plain-HTTP service of the engine's network (the demo's), through a forwarder on loopback; not with --token-file")
	do := cmd(fs)
	err := fs.Parse(args[1:])
	if err == nil {
		api, err = api.reachable(ctx)
	}
	if err == nil {
		err = do(ctx, api, std)
	} else if !errors.Is(err, flag.ErrHelp) {
		err = usageError{err}
	}
	var ue usageError
	var failed callFailed
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &failed):
		fmt.Fprintf(stderr, "github %s: %v\n", args[0], err)
		return wire.ExitFailure
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "github %s: %v\n", args[0], err)
		return wire.ExitUsage
	}
	fmt.Fprintf(stderr, "github %s: %v\n", args[0], err)
	return wire.ExitFailure
}

// apiFlags are where every command reaches GitHub, and as whom.
type apiFlags struct {
	url, tokenFile string
	viaLoopback    bool
}

// reachable is f with --api reached through a loopback forwarder when --via-loopback asks
// for one: the client sends plain HTTP only to loopback, and a service's name is not one.
// A token never takes that way: it is for the demo, which needs none.
func (f apiFlags) reachable(ctx context.Context) (apiFlags, error) {
	if !f.viaLoopback {
		return f, nil
	}
	if f.tokenFile != "" {
		return f, usagef("--via-loopback is for the demo's GitHub, which takes no token: drop --token-file")
	}
	u, err := plainhttp.Loopback(ctx, f.url)
	if err != nil {
		return f, fmt.Errorf("--api: %w", err)
	}
	f.url = u
	return f, nil
}

// token is the token in f's file; "" without one.
func (f apiFlags) token() (string, error) {
	if f.tokenFile == "" {
		return "", nil
	}
	b, err := os.ReadFile(f.tokenFile)
	if err != nil {
		// The path is the module's own mount point; the error names no token.
		return "", fmt.Errorf("reading the token file: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

func (f apiFlags) clientWith(token string, opts ...githubclient.Option) (*githubclient.Client, error) {
	if f.url == "" {
		return nil, usagef("--api is required")
	}
	return githubclient.NewClient(f.url, token, opts...)
}
