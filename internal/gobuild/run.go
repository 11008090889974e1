package gobuild

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/internal/wire"
)

// ExitError is a command that ran and failed: its exit code, what it printed on stdout
// (some commands report there what they did before failing), and its message, its stderr
// or, when that is empty, the engine's.
type ExitError struct {
	Code    int
	Stdout  string
	Message string
}

func (e *ExitError) Error() string { return fmt.Sprintf("exit code %d: %s", e.Code, e.Message) }

// Run runs argv in ctr and returns its stdout, as an exec the engine never answers from
// its cache: Shipyard's commands read or write what is outside the graph (a registry,
// GitHub, Sigstore), so each call must run. A random value in the variable runVar makes
// every run a new exec. A command that fails is an *ExitError; a usage error (wire's exit
// code) says it is Shipyard's bug.
func Run(ctx context.Context, ctr *dagger.Container, runVar string, argv []string) (string, error) {
	return RunInput(ctx, ctr, runVar, argv, "")
}

// RunInput is Run with stdin given to the command.
func RunInput(ctx context.Context, ctr *dagger.Container, runVar string, argv []string, stdin string) (string, error) {
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("%s: %w", strings.Join(argv[:min(2, len(argv))], " "), err)
	}
	stdout, err := ctr.WithEnvVariable(runVar, hex.EncodeToString(nonce)).
		WithExec(argv, dagger.ContainerWithExecOpts{Stdin: stdin}).Stdout(ctx)
	if err == nil {
		return stdout, nil
	}
	var ee *dagger.ExecError
	if !errors.As(err, &ee) {
		return "", err
	}
	msg := strings.TrimSpace(ee.Stderr)
	if msg == "" {
		msg = ee.Message()
	}
	if ee.ExitCode == wire.ExitUsage {
		// The module wrote the command line: the user cannot fix it.
		msg = "usage error (a bug of Shipyard's, please report it): " + msg
	}
	return "", &ExitError{Code: ee.ExitCode, Stdout: ee.Stdout, Message: msg}
}
