// Command testsigstore serves an offline Sigstore (Fulcio v2 and Rekor v1
// APIs, see testsigstore.Handler) on 127.0.0.1 for tests outside this module:
// they cannot import sigstore-go, so they run this next to the real
// supplychain command and point its --fulcio-url and --rekor-url here. It is
// a test tool: it lives under internal/ and is never part of the supplychain
// binary.
//
// Usage:
//
//	testsigstore --dir DIR
//
// It writes DIR/trusted_root.json, prints one JSON line
// {"url": "http://127.0.0.1:PORT", "trustedRoot": "DIR/trusted_root.json"}
// once it listens, and serves until its standard input closes (so it never
// outlives the test that started it) or it is interrupted.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"dagger/shipyard/supplychain/internal/testsigstore"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "testsigstore: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("testsigstore", flag.ContinueOnError)
	dir := fs.String("dir", "", "folder to write trusted_root.json into")
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on (loopback only)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("--dir is required")
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--listen %s: a test Sigstore listens on a loopback address only", *listen)
	}
	ss, err := testsigstore.New()
	if err != nil {
		return err
	}
	tr, err := ss.TrustedRootJSON()
	if err != nil {
		return err
	}
	trPath := filepath.Join(*dir, "trusted_root.json")
	if err := os.WriteFile(trPath, tr, 0o644); err != nil {
		return fmt.Errorf("writing the trusted root: %w", err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: ss.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if err := json.NewEncoder(stdout).Encode(map[string]string{"url": "http://" + ln.Addr().String(), "trustedRoot": trPath}); err != nil {
		return fmt.Errorf("writing the address: %w", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stdinClosed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		close(stdinClosed)
	}()
	select {
	case <-ctx.Done():
	case <-stdinClosed:
	case err := <-served:
		return err
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}
