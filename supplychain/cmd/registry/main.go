// Command registry is Shipyard's registry work: it pushes images by digest, builds and
// pushes image indexes, reads the platforms of an index, resolves tags and applies tag
// plans under the publishing rules of package registry. It is built and run in a container
// by the Shipyard Dagger module, so that the module's own binary links no registry client,
// and it is a command of its own, so that the jobs that only push or tag do not compile
// the signing command's sigstore-go.
//
// Usage:
//
//	registry push       --repository R --image FILE [--image FILE --platform P ...] [--dry-run]
//	registry assemble   --indexes JSON
//	registry digest     --image REF [--image REF ...]
//	registry platforms  --image REF [--image REF ...]
//	registry tags       --repository R --tag T [--tag T ...]
//	registry plan-tags  --tag-policy JSON --image REPO@DIGEST [--image ...] --tag T [--tag T ...]
//	registry apply-tags --tag-policy JSON --plans JSON [--branch-history JSON]
//	registry move-latest --tag-policy JSON --image REPO@DIGEST [--image ...] [--higher V ...]
//
// Every command takes --registry-username and --registry-password-file (anonymous without
// them) and --plain-http HOST, the one registry host plain HTTP may go to; those that plan
// or write tags also take --tag-policy, the publishing system's names of its latest, branch
// and commit tags (wire.TagPolicy). Results are JSON
// on stdout; apply-tags and move-latest print what they did also when they fail. The exit code
// is 0 on success, 1 on a failure, 2 on a usage error and 3 when a tag that never moves
// (a version or a commit tag) is on another digest, now or since the plan.
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

	"dagger/shipyard/supplychain/wire"

	"dagger/shipyard/supplychain/registry"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: registry <command> [flags]

  push        push an image (an OCI layout tar or a docker archive) by digest, or with
              --platform per image, their image index; --dry-run only computes the digests
  assemble    build each image's index from platform images already pushed, then push them
  digest      resolve references to digests
  platforms   resolve references to digests and the platform images their index lists
  tags        resolve tags of a repository
  plan-tags   plan pointing tags at image digests (refused for a tag that never moves)
  apply-tags  apply tag plans, rechecking the registry right before each write
  move-latest move the latest tag to each image's digest, in every repository or in none

Run "registry <command> -h" for the flags of a command.
`

// A command binds its flags to fs and returns what runs once they are parsed.
type command func(fs *flag.FlagSet) func(ctx context.Context, conn connection, stdout io.Writer) error

var commands = map[string]command{
	"push":        push,
	"assemble":    assemble,
	"digest":      digest,
	"platforms":   platforms,
	"tags":        tags,
	"plan-tags":   planTags,
	"apply-tags":  applyTags,
	"move-latest": moveLatest,
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return wire.ExitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "registry: unknown command %q\n%s", args[0], usage)
		return wire.ExitUsage
	}
	err := runCommand(ctx, cmd, args[0], args[1:], stdout, stderr)
	var ue usageError
	var ie *registry.ImmutableTagError
	var ce *registry.ConcurrentTagError
	code := wire.ExitFailure
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		code = wire.ExitUsage
	case errors.As(err, &ie), errors.As(err, &ce):
		code = wire.ExitMoved
	}
	fmt.Fprintf(stderr, "registry %s: %v\n", args[0], err)
	return code
}

// runCommand parses the flags (the shared ones and the command's), reads the password,
// and runs the command; an error never holds the password.
func runCommand(ctx context.Context, cmd command, name string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("registry "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var conn connection
	fs.StringVar(&conn.username, "registry-username", "", "registry user name (anonymous when empty)")
	fs.StringVar(&conn.passwordFile, "registry-password-file", "", "file holding the registry password or token")
	fs.StringVar(&conn.plainHTTP, "plain-http", "", "the registry host (no port) that plain HTTP may go to: one the traffic cannot leave the machine for")
	do := cmd(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q", fs.Args())
	}
	if strings.ContainsAny(conn.plainHTTP, ":/[]") {
		return usagef("--plain-http %q: give the host alone, without port or scheme", conn.plainHTTP)
	}
	if err := conn.readPassword(); err != nil {
		return err
	}
	return conn.auth.Scrub(do(ctx, conn, stdout))
}

type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// connection is how a command reaches the registry: the login and where plain HTTP may go.
type connection struct {
	username, passwordFile, plainHTTP string
	auth                              registry.Auth
}

// readPassword reads the password file into memory; trailing newlines are not part of it.
func (c *connection) readPassword() error {
	c.auth.Username = c.username
	if c.passwordFile == "" {
		return nil
	}
	b, err := os.ReadFile(c.passwordFile)
	if err != nil {
		return fmt.Errorf("reading the registry password file: %w", err)
	}
	c.auth.Password = strings.TrimRight(string(b), "\r\n")
	return nil
}

// options are the registry options of the connection.
func (c connection) options(extra ...registry.Option) []registry.Option {
	var opts []registry.Option
	if c.plainHTTP != "" {
		opts = append(opts, registry.WithPlainHTTP(c.plainHTTP))
	}
	return append(opts, extra...)
}
